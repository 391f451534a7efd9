#ifndef SHAPES_H
#define SHAPES_H

struct point {
	int x;
	int y;
};

int area(struct point p);

#endif
