/* Licensed under the Apache License, Version 2.0.
 *
 * my_cut.c: pq_cut.c's twin for MariaDB (LD_PRELOAD into httpd,
 * t/fault/run --backend mysql): cuts the connection under one call in
 * PL_CUT_EVERY of the MariaDB client calls that send something, as a
 * failover, a proxy's timeout or a KILL does: the socket is shut down,
 * then the real call runs and meets a dead connection ("Lost connection
 * to server during query", "Server has gone away"). apr_dbd_mysql sends
 * everything through these: text statements (BEGIN, SET, SELECT ...),
 * PREPARE and EXECUTE of prepared statements, COMMIT, ROLLBACK, the
 * autocommit switch, and mod_dbd's ping of each connection it hands
 * out. Declared here without the client's headers (test only; never
 * built into the module): a prepared statement's connection is the one
 * mysql_stmt_init was given, remembered in a small table.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct st_mysql MYSQL;
typedef struct st_mysql_stmt MYSQL_STMT;
typedef char my_bool;

int mysql_get_socket(MYSQL *mysql);

/* The statements' connections: slot i holds one pair, 0 when free. A
 * child has at most a few hundred statements open (tens per pooled
 * connection); one not found is simply never cut. */
#define STMTS 4096
static struct {
    MYSQL_STMT *stmt;
    MYSQL *mysql;
} stmts[STMTS];
static pthread_mutex_t stmts_lock = PTHREAD_MUTEX_INITIALIZER;

static void remember(MYSQL_STMT *stmt, MYSQL *mysql)
{
    size_t i;

    pthread_mutex_lock(&stmts_lock);
    for (i = 0; i < STMTS; i++) {
        if (stmts[i].stmt == NULL) {
            stmts[i].stmt = stmt;
            stmts[i].mysql = mysql;
            break;
        }
    }
    pthread_mutex_unlock(&stmts_lock);
}

static MYSQL *connection_of(MYSQL_STMT *stmt, int forget)
{
    MYSQL *mysql = NULL;
    size_t i;

    pthread_mutex_lock(&stmts_lock);
    for (i = 0; i < STMTS; i++) {
        if (stmts[i].stmt == stmt) {
            mysql = stmts[i].mysql;
            if (forget) {
                stmts[i].stmt = NULL;
            }
            break;
        }
    }
    pthread_mutex_unlock(&stmts_lock);
    return mysql;
}

/* One call in PL_CUT_EVERY (0: none), drawn from the call's number
 * as pq_cut.c draws it. */
static void cut_now(MYSQL *mysql)
{
    static long every = -1;
    static unsigned long calls;
    unsigned long long x;

    if (every < 0) {
        const char *e = getenv("PL_CUT_EVERY");

        every = e ? atol(e) : 0;
    }
    if (every <= 0 || mysql == NULL) {
        return;
    }
    x = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) + (unsigned)getpid();
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    if (x % (unsigned long long)every == 0) {
        shutdown(mysql_get_socket(mysql), SHUT_RDWR);
    }
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

int mysql_query(MYSQL *mysql, const char *q);
int mysql_query(MYSQL *mysql, const char *q)
{
    cut_now(mysql);
    return REAL(mysql_query)(mysql, q);
}

my_bool mysql_commit(MYSQL *mysql);
my_bool mysql_commit(MYSQL *mysql)
{
    cut_now(mysql);
    return REAL(mysql_commit)(mysql);
}

my_bool mysql_rollback(MYSQL *mysql);
my_bool mysql_rollback(MYSQL *mysql)
{
    cut_now(mysql);
    return REAL(mysql_rollback)(mysql);
}

my_bool mysql_autocommit(MYSQL *mysql, my_bool on);
my_bool mysql_autocommit(MYSQL *mysql, my_bool on)
{
    cut_now(mysql);
    return REAL(mysql_autocommit)(mysql, on);
}

int mysql_ping(MYSQL *mysql);
int mysql_ping(MYSQL *mysql)
{
    cut_now(mysql);
    return REAL(mysql_ping)(mysql);
}

MYSQL_STMT *mysql_stmt_init(MYSQL *mysql);
MYSQL_STMT *mysql_stmt_init(MYSQL *mysql)
{
    MYSQL_STMT *stmt = REAL(mysql_stmt_init)(mysql);

    if (stmt != NULL) {
        remember(stmt, mysql);
    }
    return stmt;
}

my_bool mysql_stmt_close(MYSQL_STMT *stmt);
my_bool mysql_stmt_close(MYSQL_STMT *stmt)
{
    connection_of(stmt, 1);
    return REAL(mysql_stmt_close)(stmt);
}

int mysql_stmt_prepare(MYSQL_STMT *stmt, const char *q, unsigned long len);
int mysql_stmt_prepare(MYSQL_STMT *stmt, const char *q, unsigned long len)
{
    cut_now(connection_of(stmt, 0));
    return REAL(mysql_stmt_prepare)(stmt, q, len);
}

int mysql_stmt_execute(MYSQL_STMT *stmt);
int mysql_stmt_execute(MYSQL_STMT *stmt)
{
    cut_now(connection_of(stmt, 0));
    return REAL(mysql_stmt_execute)(stmt);
}
