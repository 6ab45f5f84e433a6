/* Licensed under the Apache License, Version 2.0.
 *
 * pl_pages.c: buffers mapped for them alone (pl_pages.h).
 *
 * Why not malloc: an answer kept for later requests (up to megabytes)
 * freed by glibc goes back to the system if it was mapped for it, and
 * then raises malloc's threshold for mapping to its size, so that the
 * json-c objects and driver results of the next large requests are
 * taken from the thread's arena, and kept there: a child grew by tens
 * of MB after rounds of 15 MB answers (t/api/candidates-memory.yaml).
 * These buffers are mapped and unmapped by hand and leave malloc as it
 * was.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "pl_pages.h"

static apr_size_t pages(apr_size_t size)
{
    static apr_size_t page;

    if (page == 0) {
        long n = sysconf(_SC_PAGESIZE);

        page = n > 0 ? (apr_size_t)n : 4096;
    }
    return size == 0 ? page : (size + page - 1) / page * page;
}

/* private memory of the process, no file behind it */
#define READ_WRITE (PROT_READ | PROT_WRITE)
#define ANONYMOUS (MAP_PRIVATE | MAP_ANONYMOUS)

char *pl_pages_alloc(apr_size_t size)
{
    void *s;

    /* an anonymous mapping's fd is -1 (cppcheck knows only files') */
    /* cppcheck-suppress invalidFunctionArg */
    s = mmap(NULL, pages(size), READ_WRITE, ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) {
        return NULL;
    }
    return s;
}

char *pl_pages_resize(char *s, apr_size_t old_size, apr_size_t size)
{
    void *ns;

    if (pages(size) == pages(old_size)) {
        return s;
    }
    ns = mremap(s, pages(old_size), pages(size), MREMAP_MAYMOVE);
    return ns == MAP_FAILED ? NULL : ns;
}

void pl_pages_free(char *s, apr_size_t size)
{
    if (s) {
        munmap(s, pages(size));
    }
}
