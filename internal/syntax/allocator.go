package syntax

/*
#include <stdlib.h>

// From tree_sitter/api.h, declared here because the header sits in the
// binding's module directory, which a cgo preamble cannot name portably.
void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));

static void anvil_use_libc_allocator(void) { ts_set_allocator(malloc, calloc, realloc, free); }
*/
import "C"

// init points tree-sitter's allocator straight at libc. The Go binding
// installs an allocator that calls back into Go for every malloc and free
// (two cgo transitions each) only so that Go code may swap it; its default
// ends in libc anyway, so memory from either path is freed correctly by
// the other. Parsing is 20-45% faster without the detour (BenchmarkSyntaxParse).
// It runs in init, after the binding's own init and before any parse, because
// ts_set_allocator is not safe to call while another thread allocates.
func init() { C.anvil_use_libc_allocator() }
