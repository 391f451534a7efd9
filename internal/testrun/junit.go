package testrun

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// JUnit XML is the report format most runners can write (pytest,
// Maven's and Gradle's, cargo-nextest, go-junit-report, jest-junit): one
// <testcase> per test, failed when it holds a <failure> or an <error>.

type junitCase struct {
	Name      string       `xml:"name,attr"`
	Classname string       `xml:"classname,attr"`
	File      string       `xml:"file,attr"`
	Failure   []junitIssue `xml:"failure"`
	Error     []junitIssue `xml:"error"`
	Skipped   *struct{}    `xml:"skipped"`
	SystemOut string       `xml:"system-out"`
}

type junitIssue struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// junitCases reads every <testcase> of a report, whatever nests it
// (<testsuites>, <testsuite>, nested suites).
func junitCases(report []byte) ([]junitCase, error) {
	dec := xml.NewDecoder(bytes.NewReader(report))
	var cases []junitCase
	sawSuite := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) && (sawSuite || len(cases) > 0) {
			return cases, nil
		}
		if err != nil {
			// A report cut short or malformed is no evidence.
			return nil, fmt.Errorf("not a whole JUnit XML report: %v", err)
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch start.Name.Local {
		case "testsuite", "testsuites":
			sawSuite = true
		case "testcase":
			var c junitCase
			if err := dec.DecodeElement(&c, &start); err != nil {
				return nil, fmt.Errorf("a JUnit <testcase>: %w", err)
			}
			cases = append(cases, c)
		}
	}
}

// readJUnit records a report's failures in o, each named by name(c), and
// counts the tests that ran (skipped ones do not count).
func readJUnit(report []byte, o *outcome, name func(junitCase) string, retry func(junitCase) string) error {
	cases, err := junitCases(report)
	if err != nil {
		return err
	}
	o.tests = 0
	for _, c := range cases {
		if c.Skipped != nil && len(c.Failure) == 0 && len(c.Error) == 0 {
			continue
		}
		o.tests++
		issues := append(c.Failure, c.Error...)
		if len(issues) == 0 {
			continue
		}
		n := name(c)
		o.failed[n] = true
		var b strings.Builder
		for _, is := range issues {
			if is.Message != "" && !strings.Contains(is.Text, is.Message) {
				b.WriteString(is.Message + "\n")
			}
			b.WriteString(strings.TrimSpace(is.Text) + "\n")
		}
		o.output[n] = b.String()
		if retry != nil {
			if sel := retry(c); sel != "" {
				o.retry[n] = sel
			}
		}
	}
	return nil
}

// junitName names a test of a generic report: its class and name.
func junitName(c junitCase) string {
	if c.Classname == "" {
		return c.Name
	}
	return c.Classname + "." + c.Name
}
