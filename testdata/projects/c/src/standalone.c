int standalone(void) { return 1; }
