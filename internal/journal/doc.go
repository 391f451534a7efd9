// Package journal commits a validated change set to the user's files so that
// nothing is lost or left half-written, and lets the user undo a commit.
//
// # Protocol
//
// Every commit is recorded as an entry under the session directory,
// <session>/journal/<seq>/, holding manifest.json and files/<n>, the content
// each existing file had before the commit. A commit runs, under a lock, as:
//
//  1. Conflict check. Every file must still be what the change was based on
//     (same content and mode, or still absent for a new file). Otherwise
//     [*ConflictError] is returned and nothing is written.
//  2. Prepare. The before-contents and then the manifest, in state
//     [Prepared], are written and fsynced, together with every directory on
//     the way from the entry up to the sessions base. This happens before any
//     user file is touched: once a file changes, the means to put it back are
//     already on disk, whatever happens next.
//  3. Apply. Each file is written to a temporary file in its own directory,
//     fsynced, given its mode and renamed over the target; deletions are
//     removals. The directory is fsynced after each rename or removal.
//     Without the file fsync a crash could leave the renamed file empty;
//     without the directory fsync the rename itself could be lost.
//  4. Commit. The manifest is atomically rewritten in state [Committed] and
//     its directory fsynced. Only after this point does a crash keep the new
//     contents; before it, recovery puts the old ones back.
//
// If applying fails, the files already written are restored from the entry,
// which ends [RolledBack], and the error is returned.
//
// # Recovery
//
// A crash between prepare and commit leaves an entry in state [Prepared].
// [Journal.Recover] finds such entries for its workspace in every session
// under the sessions base and restores each file to its before-state: it
// rewrites changed files, recreates deleted ones and removes created ones,
// then marks the entry [RolledBack]. A file whose content is neither the
// before- nor the after-state was changed by someone after the crash; it is
// left alone and reported, and its old content stays in the entry. Running
// Recover again finds nothing to do.
//
// # Undo
//
// [Journal.Undo] reverts the latest [Committed] entry of the workspace across
// sessions. It refuses, naming the files, if any of them was changed since
// the commit. The revert is itself a journaled commit (an entry whose Undoes
// names the reverted one), written beside the reverted entry, so a crash in
// the middle of an undo is recovered like any other commit. The reverted
// entry is then marked [Undone], and the next Undo goes one commit further
// back.
//
// # Locking
//
// Commit, Recover and Undo hold an exclusive file lock for the workspace, in
// <sessions base>/locks/, so two Anvil processes never interleave their
// writes, and so an entry seen as [Prepared] under the lock really belongs to
// a process that died: a live committer would still hold the lock. The lock
// lives outside the workspace so that nothing Anvil needs shows up in the
// user's tree.
package journal
