/* Licensed under the Apache License, Version 2.0.
 *
 * pq_cut.c: a test shim (LD_PRELOAD into httpd, t/fault/run) that cuts
 * the PostgreSQL connection under a libpq call, as a failover or a proxy
 * does, at one call in PL_CUT_EVERY of a process that send a
 * statement, drawn at random (a fixed period would cut the same call of
 * the same request every time): the socket is shut down, then the real
 * call runs and meets it as a dead connection (no answer at all,
 * PQexec's NULL, or an error result). Every statement apr_dbd_pgsql sends goes through these five:
 * BEGIN, COMMIT, ROLLBACK, SAVEPOINT, PREPARE, EXECUTE, the kept
 * statements' EXECUTE, the candidate cache's, and every read. Test only:
 * never built into the module.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <libpq-fe.h>

static unsigned long calls;

/* Whether this call is one to cut: one in PL_CUT_EVERY (0: none),
 * drawn from the call's number (splitmix64: no state but the count). */
static int cut_now(PGconn *conn)
{
    static long every = -1;
    unsigned long long x;

    if (every < 0) {
        const char *e = getenv("PL_CUT_EVERY");

        every = e ? atol(e) : 0;
    }
    if (every <= 0) {
        return 0;
    }
    x = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) + (unsigned)getpid();
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    if (x % (unsigned long long)every != 0) {
        return 0;
    }
    shutdown(PQsocket(conn), SHUT_RDWR);
    return 1;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

PGresult *PQexec(PGconn *conn, const char *query)
{
    cut_now(conn);
    return REAL(PQexec)(conn, query);
}

PGresult *PQexecParams(PGconn *conn, const char *command, int nParams,
                       const Oid *paramTypes, const char *const *paramValues,
                       const int *paramLengths, const int *paramFormats,
                       int resultFormat)
{
    cut_now(conn);
    return REAL(PQexecParams)(conn, command, nParams, paramTypes, paramValues,
                              paramLengths, paramFormats, resultFormat);
}

PGresult *PQexecPrepared(PGconn *conn, const char *stmtName, int nParams,
                         const char *const *paramValues,
                         const int *paramLengths, const int *paramFormats,
                         int resultFormat)
{
    cut_now(conn);
    return REAL(PQexecPrepared)(conn, stmtName, nParams, paramValues,
                                paramLengths, paramFormats, resultFormat);
}

int PQsendQuery(PGconn *conn, const char *query)
{
    cut_now(conn);
    return REAL(PQsendQuery)(conn, query);
}

int PQsendQueryParams(PGconn *conn, const char *command, int nParams,
                      const Oid *paramTypes, const char *const *paramValues,
                      const int *paramLengths, const int *paramFormats,
                      int resultFormat)
{
    cut_now(conn);
    return REAL(PQsendQueryParams)(conn, command, nParams, paramTypes,
                                   paramValues, paramLengths, paramFormats,
                                   resultFormat);
}
