#include "shapes.h"
#include "limits.inc"

int area(struct point p) { return p.x * p.y; }

int max_points(void) { return MAX_POINTS; }
