package servers

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// A warm-up asks nothing it already knows for the disk state, so after a
// check that left a pull server to bring its program back to the disk it
// would ask nothing, and the next check would pay for the rebuild. Settle
// asks the server whatever is kept: the server answers.
func TestSettleAsksWhatAWarmUpKnows(t *testing.T) {
	dir := hubAndUser(t, `{}`)
	srv, err := realManager(t, dir).ForLanguage("typescript")
	if err != nil {
		t.Fatal(err)
	}
	if srv.Spec().Mode != ModePull {
		t.Fatalf("%s is not a pull server", srv.Spec().Name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	files := []string{filepath.Join(dir, "hub.ts"), filepath.Join(dir, "use.ts")}
	if err := srv.Warm(ctx, "state", files); err != nil {
		t.Fatal(err)
	}
	written := func() uint64 { return srv.current().OutputBytes() }
	before := written()
	if err := srv.Warm(ctx, "state", files); err != nil {
		t.Fatal(err)
	}
	if got := written(); got != before {
		t.Fatalf("a warm-up of what is known wrote %d bytes, want none", got-before)
	}
	if err := srv.Settle(ctx, files); err != nil {
		t.Fatal(err)
	}
	if written() == before {
		t.Fatal("Settle asked the server nothing")
	}
}
