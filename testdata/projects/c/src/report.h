#ifndef REPORT_H
#define REPORT_H

#include "shapes.h"

int report(struct point p);

#endif
