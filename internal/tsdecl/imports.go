package tsdecl

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// importsBound bounds one record of a project's imports: TypeScript
// parses every file of the program the first time (a few seconds for a
// project of 1,500 files), then only the files that changed.
const importsBound = 2 * time.Minute

// Imports is the compiler's record of what it resolved: for each file of
// a program (absolute path), the modules it imports that resolved into
// the workspace, as [specifier, resolved file] pairs.
type Imports map[string][][2]string

// Imports builds the program of the TypeScript project config (a
// tsconfig.json or jsconfig.json, absolute) on the disk as it is, with
// overlay laid over it (absolute path → content, nil for a file
// deleted), and returns the imports TypeScript resolved into root,
// outside node_modules. A created file under the configuration's
// directory is taken into the program whether its patterns include it
// or not: a record may hold more than the compiler's program, never less.
//
// With reuse (and no overlay), the caller vouches that since the last
// record of config no file was created or deleted and no JSON file
// changed, only the content of source files: TypeScript then keeps the
// earlier program's resolutions of the unchanged files and resolves the
// changed files' imports again, which costs the change, not the project.
func (e *Emitter) Imports(ctx context.Context, config, root string, overlay map[string]*string, reuse bool) (Imports, error) {
	if err := e.acquire(ctx); err != nil {
		return nil, err
	}
	defer e.release()
	req := map[string]any{"kind": "imports", "config": config, "root": root, "reuse": reuse}
	if overlay != nil {
		req["overlay"] = overlay
	}
	line, err := e.roundTrip(ctx, importsBound, req)
	if err != nil {
		return nil, err
	}
	var a struct {
		Imports Imports `json:"imports"`
	}
	if err := json.Unmarshal(line, &a); err != nil {
		e.stop()
		return nil, fmt.Errorf("the record of %s's imports: %v", config, err)
	}
	return a.Imports, nil
}
