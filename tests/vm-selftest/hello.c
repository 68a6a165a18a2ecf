/* Dynamically linked on purpose: proves build-initramfs copies libc + ld.so. */
#include <stdio.h>

int main(void)
{
	puts("hello from a dynamically linked program");
	return 0;
}
