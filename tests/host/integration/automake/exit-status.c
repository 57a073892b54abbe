/*
 * Not a TAP producer: its verdict is its exit status, read from the file
 * exit-status.want in the current directory (default 77, automake's skip),
 * so the recipe's test can check how each status is reported.
 */
#include <stdio.h>

int main(void)
{
	FILE *f = fopen("exit-status.want", "r");
	int status = 77;

	if (f) {
		if (fscanf(f, "%d", &status) != 1)
			status = 99;
		fclose(f);
	}
	printf("exit-status: exiting %d\n", status);
	return status;
}
