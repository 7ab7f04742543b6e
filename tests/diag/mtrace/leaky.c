/* leaky.c - test for libmtrace: leak() leaks 1000 B/iteration, churn() mallocs+frees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
void *volatile keep; /* volatile: stop gcc eliding malloc */
__attribute__((noinline)) void leak(void)
{
    void *p = malloc(1000);
    memset(p, 1, 1000);
    keep = p;
}
__attribute__((noinline)) void churn(int i)
{
    char *p = malloc(500 + i % 100);
    p[0] = 1;
    keep = p;
    free(p);
    p = calloc(10, 10);
    free(p);
    p = realloc(NULL, 64);
    p = realloc(p, 4096);
    free(p);
    void *a;
    if (!posix_memalign(&a, 64, 200))
        free(a);
    a = aligned_alloc(4096, 4096);
    free(a);
}
int main(int argc, char **argv)
{
    int secs = argc > 1 ? atoi(argv[1]) : 12;
    for (int i = 0; i < secs * 100; i++) {
        leak();
        churn(i);
        usleep(10000);
    }
    puts("leaky done");
    return 0;
}
