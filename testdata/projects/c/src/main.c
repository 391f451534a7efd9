#include <stdio.h>

#include "report.h"

int main(void) {
	struct point p = {2, 3};
	printf("%d\n", report(p));
	return 0;
}
