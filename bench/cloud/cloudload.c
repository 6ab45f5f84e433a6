/*
 * cloudload: plays the Placement traffic of a whole simulated OpenStack cloud
 * (nova resource trackers and scheduler, neutron agents, operators) against
 * one Placement server, OPEN LOOP: every flow starts at its scheduled time
 * whatever the server does, so a slow server shows up as latency (queueing
 * for a connection counts) instead of as a lower offered load.
 *
 * One thread, epoll, M keep-alive HTTP/1.1 connections, a binary heap of
 * timers. Python clients are GIL-bound at a few hundred requests/s; this one
 * sends thousands from one core.
 *
 *   cloudload --desc cloud.txt --port 28790 --boot-rate 20 --out r.json
 *   cloudload --port 8080 --flood /static.json     (ceiling, closed loop)
 *
 * The flows follow bench/cloud/TRAFFIC.md (nova, neutron, osc-placement
 * 2026.1); the section numbers in the comments are its sections:
 *   periodic  every --periodic s per compute: the clean-up read of the root's
 *             allocations, a refresh on every K-th run, the tree sync
 *             (1 + T + C requests: T providers in the tree, C consumers)
 *   boot      [/usages x2], allocation_candidates, claim GET + PUT, then the
 *             compute's GET /allocations/{c} and tree sync
 *   delete    the host's tree sync, DELETE /allocations/{c}
 *   migrate   conductor swap to a migration consumer, scheduler claim,
 *             destination reads and sync, confirm, source sync
 *   listing   three osc-placement commands, each after GET /
 *   neutron   one OVS agent's placement sync
 *   rack      --rack-start K@T: K computes restart (nova-compute start)
 *   new       --new-computes K@T: K brand-new computes start (their first
 *             start: the provider made, its inventory and traits set)
 * The description format is in usage().
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- request kinds and their microversions: the ONE table to edit ------ */

/* mv NULL: no OpenStack-API-Version header at all, so Placement answers at
 * 1.0; nova's report client does that for calls it makes without version=
 * (TRAFFIC.md, notation). */
enum kind {
    K_CN_ALLOCS,
    K_RP_ALLOCS,
    K_GET_ALLOC,
    K_RP_IN_TREE,
    K_RP_INV,
    K_RP_AGGS,
    K_RP_TRAITS,
    K_RP_SHARING,
    K_USAGES_P,
    K_AC,
    K_CLAIM,
    K_PUT_ALLOC,
    K_POST_ALLOCS,
    K_DEL_ALLOC,
    K_OSC_ROOT,
    K_RP_LIST,
    K_RP_USAGES,
    K_OSC_USAGES,
    K_NEU_BY_NAME,
    K_NEU_TRAIT,
    K_NEU_PUT_RP,
    K_NEU_GET_RP,
    K_NEU_RP_TRAITS,
    K_NEU_GET_INV,
    K_NEU_PUT_INV,
    K_NEW_RP,
    K_NEW_INV,
    K_TRAITS_IN,
    K_NEW_TRAITS,
    K_FLOOD,
    K_COUNT
};

/* clang-format off: a table, aligned by hand */
static const struct kind_def {
    const char *name; /* statistics key */
    const char *mv;   /* OpenStack-API-Version: placement <mv>, or none */
} KINDS[K_COUNT] = {
    [K_CN_ALLOCS] = { "GET /resource_providers/{cn}/allocations clean-up",
                      NULL },
    [K_RP_ALLOCS] = { "GET /resource_providers/{p}/allocations", NULL },
    [K_GET_ALLOC] = { "GET /allocations/{c}", "1.28" },
    [K_RP_IN_TREE] = { "GET /resource_providers?in_tree", "1.14" },
    [K_RP_INV] = { "GET /resource_providers/{p}/inventories", NULL },
    [K_RP_AGGS] = { "GET /resource_providers/{p}/aggregates", "1.19" },
    [K_RP_TRAITS] = { "GET /resource_providers/{p}/traits", "1.6" },
    [K_RP_SHARING] = { "GET /resource_providers?member_of&required", "1.18" },
    [K_USAGES_P] = { "GET /usages?project_id", "1.9" },
    [K_AC] = { "GET /allocation_candidates", "1.36" },
    [K_CLAIM] = { "PUT /allocations/{c} claim", "1.36" },
    [K_PUT_ALLOC] = { "PUT /allocations/{c} empty", "1.28" },
    [K_POST_ALLOCS] = { "POST /allocations", "1.28" },
    [K_DEL_ALLOC] = { "DELETE /allocations/{c}", NULL },
    [K_OSC_ROOT] = { "GET / osc", "1.29" },
    [K_RP_LIST] = { "GET /resource_providers osc", "1.29" },
    [K_RP_USAGES] = { "GET /resource_providers/{u}/usages osc", "1.29" },
    [K_OSC_USAGES] = { "GET /usages?project_id osc", "1.29" },
    [K_NEU_BY_NAME] = { "GET /resource_providers?name neutron", "1.37" },
    [K_NEU_TRAIT] = { "PUT /traits/{t} neutron", "1.37" },
    [K_NEU_PUT_RP] = { "PUT /resource_providers/{u} neutron", "1.37" },
    [K_NEU_GET_RP] = { "GET /resource_providers/{u} neutron", "1.37" },
    [K_NEU_RP_TRAITS] = { "PUT /resource_providers/{u}/traits neutron",
                          "1.37" },
    [K_NEU_GET_INV] = { "GET /resource_providers/{u}/inventories neutron",
                        "1.37" },
    [K_NEU_PUT_INV] = { "PUT /resource_providers/{u}/inventories neutron",
                        "1.37" },
    [K_NEW_RP] = { "POST /resource_providers new", "1.20" },
    [K_NEW_INV] = { "PUT /resource_providers/{cn}/inventories new", "1.26" },
    [K_TRAITS_IN] = { "GET /traits?name=in new", "1.6" },
    [K_NEW_TRAITS] = { "PUT /resource_providers/{cn}/traits new", "1.6" },
    [K_FLOOD] = { "GET flood", NULL },
};
/* clang-format on */

/* Statistics classes: who sends the request. Mostly the flow's, but the
 * compute-side reads inside boots, deletes and migrations (tree syncs and
 * the compute's GET /allocations/{c}) count as periodic: they are the same
 * resource-tracker reads (TRAFFIC.md 1c); a migration's confirm PUT counts
 * as delete. A rack's restart (TRAFFIC.md 2) is counted apart, as
 * rackstart: its reads are the periodic's, but forty computes at once are a
 * burst whose own latency says how long the rack takes to sync, where the
 * periodic class says what the steady cloud sees. */
enum cls {
    C_PERIODIC,
    C_SCHED,
    C_DELETE,
    C_LISTING,
    C_NEUTRON,
    C_RACK,
    C_FLOOD,
    C_COUNT
};
static const char *CLASS_NAMES[C_COUNT] = { "periodic", "sched",   "delete",
                                            "listing",  "neutron", "rackstart",
                                            "flood" };

/* ---- options ------------------------------------------------------------ */

static struct opts {
    const char *desc, *host, *flood, *out, *log_failures;
    int port, conns, host_subset, computes;
    double periodic, refresh, boot_rate, baremetal, az_fraction;
    int refresh_k, quota_placement;
    double delete_rate, migrate_rate, list_interval, neutron_rate;
    double duration, warmup;
    int rack_k, new_k;
    double rack_t, new_t;
    unsigned long long seed;
} O = {
    .host = "127.0.0.1",
    .port = 8778,
    .conns = 64,
    .host_subset = 5,
    .computes = -1,
    .periodic = 60,
    .refresh = 300,
    .baremetal = 0.05,
    .az_fraction = 0.3,
    .list_interval = 10,
    .duration = 60,
    .warmup = 5,
    .rack_k = 0,
    .seed = 1,
};

/* ---- small utilities ------------------------------------------------------ */

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cloudload: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        die("out of memory");
    va_end(ap);
    return s;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* splitmix64 PRNG; two seeded streams so that the schedule (arrival times,
 * phases) does not depend on what the server answered, and a third one for
 * new uuids, seeded from the clock: a second run against the same database
 * must not reuse the consumers of the first. */
typedef struct {
    uint64_t s;
} rng_t;
static rng_t RNG_SCHED, RNG_FLOW, RNG_UUID;

static uint64_t rng_next(rng_t *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_unit(rng_t *r)
{
    return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}
static size_t rng_below(rng_t *r, size_t n)
{
    return n ? rng_next(r) % n : 0;
}
static double rng_exp(rng_t *r, double rate)
{
    return -log(1.0 - rng_unit(r)) / rate;
}

static void new_uuid(char out[37])
{
    uint64_t a = rng_next(&RNG_UUID), b = rng_next(&RNG_UUID);
    a = (a & ~0xf000ULL) | 0x4000ULL; /* version 4 */
    b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
    snprintf(out, 37, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)((a >> 16) & 0xffff), (unsigned)(a & 0xffff),
             (unsigned)(b >> 48), (unsigned long long)(b & 0xffffffffffffULL));
}

/* Strings that must outlive a flow (new instances' uuids) go to an arena of
 * fixed blocks: pointers never move, everything is freed at exit. */
static struct arena_block {
    struct arena_block *next;
    size_t used;
    char data[1 << 16];
} * ARENA;

static const char *arena_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    if (!ARENA || ARENA->used + n > sizeof ARENA->data) {
        struct arena_block *b = xmalloc(sizeof *b);
        b->next = ARENA;
        b->used = 0;
        ARENA = b;
    }
    char *p = ARENA->data + ARENA->used;
    memcpy(p, s, n);
    ARENA->used += n;
    return p;
}

/* Percent-encode what keystoneauth encodes in our query values (: , !). */
static void url_append(char **buf, size_t *len, size_t *cap, const char *s)
{
    for (; *s; s++) {
        if (*len + 4 > *cap) {
            *cap = *cap * 2 + 64;
            *buf = xrealloc(*buf, *cap);
        }
        if (*s == ':' || *s == ',' || *s == '!')
            *len += sprintf(*buf + *len, "%%%02X", (unsigned char)*s);
        else
            (*buf)[(*len)++] = *s;
    }
    (*buf)[*len] = 0;
}

/* ---- histogram: log-linear, microseconds, <0.8% error ---------------------- */

#define H_BUCKETS 2304
typedef struct {
    uint64_t count, s2xx, s409, s4xx, s5xx, neterr, bytes;
    uint64_t max_us;
    uint32_t h[H_BUCKETS];
} stat_t;

static int h_index(uint64_t v)
{
    if (v < 128)
        return (int)v;
    int msb = 63 - __builtin_clzll(v), shift = msb - 6;
    int i = 128 + (shift - 1) * 64 + (int)((v >> shift) - 64);
    return i < H_BUCKETS ? i : H_BUCKETS - 1;
}

static double h_value(int i)
{
    if (i < 128)
        return i;
    int shift = (i - 128) / 64 + 1;
    uint64_t m = (uint64_t)((i - 128) % 64 + 64);
    return (double)(m << shift) + (double)(1ULL << shift) / 2;
}

static double h_percentile_ms(const stat_t *s, double p)
{
    uint64_t n = 0;
    for (int i = 0; i < H_BUCKETS; i++)
        n += s->h[i];
    if (!n)
        return 0;
    uint64_t want = (uint64_t)ceil(p * n), acc = 0;
    if (want < 1)
        want = 1;
    for (int i = 0; i < H_BUCKETS; i++) {
        acc += s->h[i];
        if (acc >= want) {
            double v = h_value(i);
            return (v > s->max_us ? s->max_us : v) / 1000.0;
        }
    }
    return s->max_us / 1000.0;
}

static void h_add(stat_t *s, double seconds)
{
    uint64_t us = seconds > 0 ? (uint64_t)(seconds * 1e6) : 0;
    s->h[h_index(us)]++;
    if (us > s->max_us)
        s->max_us = us;
}

/* ---- the cloud ----------------------------------------------------------- */

/* A compute: its root provider, its tree as nova caches it (CN record),
 * its aggregates (AG), its host name, neutron agent and bridges (NB). */
typedef struct {
    const char *root, *host, *agent, *aggs;
    const char **tree;
    int ntree;
    const char **devs;
    int ndev;
    int nper; /* periodics run: refresh on every K-th */
} compute_t;
typedef struct {
    const char *p, *u;
} pu_t;
typedef struct {
    const char *c, *p, *u;
    int host;
} inst_t; /* host: compute or -1 */
typedef struct {
    const char *name, *required;
    int vcpu, ram, disk;
} flavor_t;
typedef struct {
    const char *node, *rc;
} ironic_t;
typedef struct {
    const char *root, *aggs, *host, *agent;
    size_t devs;
    int ndev;
} agrec_t;

static struct cloud {
    char *text; /* the description file, tokenized in place */
    compute_t *cn;
    int ncn, cncap;
    const char **treeptrs;
    size_t ntp, tpcap;
    pu_t *pu;
    int npu, pucap;
    inst_t *in;
    size_t nin, incap; /* the instance pool (delete, migrate) */
    flavor_t *fl;
    int nfl, flcap;
    const char **az;
    int naz, azcap;
    ironic_t *ir;
    int nir, ircap;
    agrec_t *ag;
    int nag, agcap; /* AG and NB records until joined */
    int *slot;
    size_t slotcap;         /* root uuid -> compute index */
    const char *new_traits; /* NT: a new compute's traits, comma-separated */
} CL;

#define PUSH(arr, n, cap)                                             \
    (((n) >= (cap) ? ((cap) = (cap)*2 + 16,                           \
                      (arr) = xrealloc((arr), (cap) * sizeof *(arr))) \
                   : 0),                                              \
     &(arr)[(n)++])

static void inst_add(const char *c, const char *p, const char *u, int host)
{
    inst_t *i = PUSH(CL.in, CL.nin, CL.incap);
    i->c = c;
    i->p = p;
    i->u = u;
    i->host = host;
}

/* Split one line into NUL-terminated space-separated fields. */
static int split_fields(char *line, char **f, int max)
{
    int n = 0;
    char *s = line;
    while (*s && n < max) {
        while (*s == ' ' || *s == '\t' || *s == '\r')
            *s++ = 0;
        if (!*s || *s == '#') {
            *s = 0;
            break;
        }
        f[n++] = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\r')
            s++;
    }
    return n;
}

/* Provider lists (CN trees, NB bridges) are kept as indices into
 * CL.treeptrs until the end of parsing, since that array grows. */
static size_t keep_list(char **f, int k)
{
    size_t first = CL.ntp;
    for (int i = 0; i < k; i++)
        *PUSH(CL.treeptrs, CL.ntp, CL.tpcap) = f[i];
    return first;
}

static void parse_record(char **f, int n, int lineno)
{
    const char *t = f[0];
    if (!strcmp(t, "N"))
        return;
    if (!strcmp(t, "CN") && n >= 4) {
        int k = atoi(f[3]);
        if (k < 1 || n < 4 + k)
            die("line %d: CN with %d providers", lineno, k);
        compute_t *c = PUSH(CL.cn, CL.ncn, CL.cncap);
        memset(c, 0, sizeof *c);
        c->root = f[2];
        c->ntree = k;
        c->tree = (const char **)(uintptr_t)keep_list(f + 4, k);
    }
    else if (!strcmp(t, "AG") && n >= 3) {
        agrec_t *a = PUSH(CL.ag, CL.nag, CL.agcap);
        memset(a, 0, sizeof *a);
        a->root = f[1];
        a->aggs = f[2];
    }
    else if (!strcmp(t, "NB") && n >= 4) { /* root host agent bridge... */
        agrec_t *a = PUSH(CL.ag, CL.nag, CL.agcap);
        memset(a, 0, sizeof *a);
        a->root = f[1];
        a->host = f[2];
        a->agent = f[3];
        a->ndev = n - 4;
        a->devs = keep_list(f + 4, n - 4);
    }
    else if (!strcmp(t, "PU") && n >= 3) {
        pu_t *p = PUSH(CL.pu, CL.npu, CL.pucap);
        p->p = f[1];
        p->u = f[2];
    }
    else if (!strcmp(t, "IN") && n >= 4) { /* 4th field: host (new) */
        inst_add(f[1], f[2], f[3], n >= 5 ? atoi(f[4]) : -1);
    }
    else if (!strcmp(t, "FL") && n >= 6) {
        flavor_t *fl = PUSH(CL.fl, CL.nfl, CL.flcap);
        fl->name = f[1];
        fl->vcpu = atoi(f[2]);
        fl->ram = atoi(f[3]);
        fl->disk = atoi(f[4]);
        fl->required = strcmp(f[5], "-") ? f[5] : NULL;
    }
    else if (!strcmp(t, "AZ") && n >= 2) {
        *PUSH(CL.az, CL.naz, CL.azcap) = f[1];
    }
    else if (!strcmp(t, "NT") && n >= 2) {
        CL.new_traits = f[1];
    }
    else if (!strcmp(t, "IR") && n >= 3) {
        ironic_t *r = PUSH(CL.ir, CL.nir, CL.ircap);
        r->node = f[1];
        r->rc = f[2];
    }
    else {
        die("line %d: bad record '%s'", lineno, t);
    }
}

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The compute whose root provider is uuid, or -1 (Ironic node, unknown). */
static int cn_find(const char *uuid)
{
    if (!CL.slotcap || !uuid)
        return -1;
    for (size_t h = str_hash(uuid) & (CL.slotcap - 1); CL.slot[h] >= 0;
         h = (h + 1) & (CL.slotcap - 1))
        if (!strcmp(CL.cn[CL.slot[h]].root, uuid))
            return CL.slot[h];
    return -1;
}

/* Hash the roots, then join AG and NB records (they name a root) to them. */
static void index_computes(void)
{
    CL.slotcap = 16;
    while (CL.slotcap < (size_t)CL.ncn * 2)
        CL.slotcap *= 2;
    CL.slot = xmalloc(CL.slotcap * sizeof *CL.slot);
    memset(CL.slot, -1, CL.slotcap * sizeof *CL.slot);
    for (int i = 0; i < CL.ncn; i++) {
        size_t h = str_hash(CL.cn[i].root) & (CL.slotcap - 1);
        while (CL.slot[h] >= 0)
            h = (h + 1) & (CL.slotcap - 1);
        CL.slot[h] = i;
    }
    for (int a = 0; a < CL.nag; a++) {
        int i = cn_find(CL.ag[a].root);
        if (i < 0)
            continue;
        compute_t *c = &CL.cn[i];
        if (CL.ag[a].aggs)
            c->aggs = CL.ag[a].aggs;
        if (CL.ag[a].agent) {
            c->host = CL.ag[a].host;
            c->agent = CL.ag[a].agent;
            c->devs = CL.treeptrs + CL.ag[a].devs;
            c->ndev = CL.ag[a].ndev;
        }
    }
}

static void load_desc(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("%s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    CL.text = xmalloc(sz + 1);
    if (fread(CL.text, 1, sz, f) != (size_t)sz)
        die("%s: short read", path);
    CL.text[sz] = 0;
    fclose(f);
    char *fields_small[64], **fields = fields_small;
    int maxf = 64, lineno = 0;
    for (char *line = CL.text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        lineno++;
        /* CN lines can be long (k providers): size the field array to fit */
        int spaces = 0;
        for (char *s = line; *s; s++)
            spaces += *s == ' ';
        if (spaces + 2 > maxf) {
            maxf = spaces + 2;
            fields = fields == fields_small
                         ? xmalloc(maxf * sizeof *fields)
                         : xrealloc(fields, maxf * sizeof *fields);
        }
        int n = split_fields(line, fields, maxf);
        if (n)
            parse_record(fields, n, lineno);
    }
    if (fields != fields_small)
        free(fields);
    for (int i = 0; i < CL.ncn; i++)
        CL.cn[i].tree = CL.treeptrs + (uintptr_t)CL.cn[i].tree;
    index_computes();
    if (O.computes >= 0 && O.computes < CL.ncn)
        CL.ncn = O.computes;
}

/* ---- flows, connections, timers ----------------------------------------- */

enum flow_type {
    F_PERIODIC,
    F_RACK,
    F_BOOT,
    F_DELETE,
    F_MIGRATE,
    F_LISTING,
    F_NEUTRON,
    F_NEW,
    F_FLOOD
};

/* A sub-flow run inside a flow: a compute's tree sync or refresh. */
enum sub_phase { SUB_START, SUB_TREE, SUB_CONSUMERS, SUB_IN_TREE, SUB_ASSOC };
typedef struct {
    int phase, i, compute;
    char **ids;
    int nids, idcap; /* providers (refresh) or consumers (sync) */
    char *share;     /* refresh: this provider's sharing query */
} sub_t;

/* A flow has at most one request outstanding; the request lives in it. */
typedef struct flow {
    int type, cls, rcls, step, kind, retries, started, resent;
    double sched, ready;   /* scheduled start; current step ready */
    struct flow *qnext;    /* FIFO of flows waiting for a connection */
    char *method_path;     /* "GET /x" of the current request */
    char *body;            /* its body or NULL */
    int compute, pos;      /* the compute (periodic, neutron) */
    int cleanups, refresh; /* periodic: clean-up reads, refresh or not */
    int host, dest;        /* the instance's compute (-1: none) */
    const char *c, *p, *u; /* consumer, project, user */
    char newc[37], mig[37];
    json_object *cands; /* allocation_requests (owned ref) */
    json_object *alloc; /* migrate: the allocations moved */
    int cand_first, cand_n, ci, attempts, claim, claimed;
    int vcpu, ram, disk;
    long long gen, gen2;
    const char *rc; /* baremetal resource class or NULL */
    const flavor_t *fl;
    unsigned char ops[40][2]; /* neutron: (op, device) to run */
    int nops, op;
    sub_t sub;
} flow_t;

enum conn_state { CS_DOWN, CS_CONNECTING, CS_IDLE, CS_BUSY };
typedef struct conn {
    int fd, state, idx, reused, want_out;
    flow_t *cur;
    flow_t *resend; /* sent first once this connection is open again */
    char *out;
    size_t out_len, out_off, out_cap;
    char *in;
    size_t in_len, in_cap;
    size_t hdr_len, body_len, scan; /* scan: chunked parse position */
    long long clen, chunk_left;     /* -1 unknown / expecting size line */
    int status, chunked, close_after, chunk_crlf, done_hdr;
} conn_t;

enum timer_type {
    T_PERIODIC,
    T_BOOT,
    T_DELETE,
    T_MIGRATE,
    T_LISTING,
    T_NEUTRON,
    T_RACK,
    T_NEW,
    T_RECONNECT,
    T_RESUME /* a flow's request held back by nova's retry sleep */
};
typedef struct {
    double t;
    int type, idx;
    struct flow *f; /* T_RESUME's flow */
} timer_t_;

static struct {
    int ep;
    conn_t *conns;
    int *idle;
    int nidle;
    flow_t *qhead, *qtail;
    timer_t_ *heap;
    size_t nheap, heapcap;
    double t0, t_warm, t_end, t_last;
    long active;
    stat_t kinds[K_COUNT], classes[C_COUNT], lag;
    struct {
        uint64_t placed, novalidhost, claim_retries, claim_failed, deleted,
            migrated, skipped, migrate_conflict, conflicts, flows_started,
            flows_unfinished, baremetal, resent, retry_sleeps, computes_new,
            stale; /* idle connections found closed before a send */
    } fc;
    FILE *logf;
    int n5xx_printed;
    struct sockaddr_in addr;
    int finished;
} L;

static void heap_add(timer_t_ tm)
{
    *PUSH(L.heap, L.nheap, L.heapcap) = tm;
    for (size_t i = L.nheap - 1; i > 0;) {
        size_t p = (i - 1) / 2;
        if (L.heap[p].t <= L.heap[i].t)
            break;
        timer_t_ tmp = L.heap[p];
        L.heap[p] = L.heap[i];
        L.heap[i] = tmp;
        i = p;
    }
}

static void heap_push(double t, int type, int idx)
{
    heap_add((timer_t_){ .t = t, .type = type, .idx = idx });
}

static timer_t_ heap_pop(void)
{
    timer_t_ top = L.heap[0];
    L.heap[0] = L.heap[--L.nheap];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < L.nheap && L.heap[l].t < L.heap[m].t)
            m = l;
        if (r < L.nheap && L.heap[r].t < L.heap[m].t)
            m = r;
        if (m == i)
            break;
        timer_t_ tmp = L.heap[m];
        L.heap[m] = L.heap[i];
        L.heap[i] = tmp;
        i = m;
    }
    return top;
}

static void conn_open(conn_t *c);
static void conn_send(conn_t *c, flow_t *f);
static void flow_next(flow_t *f, int status, const char *body, size_t len);

static void conn_fail(conn_t *c);

/* An idle kept-alive connection the server closed has its end of stream
 * waiting to be read: httpd's event MPM closes every idle keep-alive
 * connection of a process whose workers are all busy, all at once. Like
 * urllib3 (under nova's and neutron's clients), which checks a pooled
 * connection for that before it sends on it, take an idle connection only
 * once it is seen open; the closed ones are opened again. */
static conn_t *idle_conn(void)
{
    while (L.nidle) {
        conn_t *c = &L.conns[L.idle[--L.nidle]];
        char b;
        if (recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) < 0 &&
            (errno == EAGAIN || errno == EWOULDBLOCK))
            return c;
        L.fc.stale++;
        conn_fail(c); /* holds no request: closed, reopened */
    }
    return NULL;
}

/* A flow's current request waits for a connection: a free one takes it
 * now, else it waits in FIFO order (the wait counts in its latency). */
static void flow_queue(flow_t *f)
{
    conn_t *c = idle_conn();
    if (c) {
        conn_send(c, f);
        return;
    }
    f->qnext = NULL;
    if (L.qtail)
        L.qtail->qnext = f;
    else
        L.qhead = f;
    L.qtail = f;
}

/* Make method_path (and body) the flow's current request. */
static void flow_request(flow_t *f, int cls, int kind, char *method_path,
                         char *body)
{
    f->kind = kind;
    f->rcls = f->type == F_RACK && cls == C_PERIODIC ? C_RACK : cls;
    free(f->method_path);
    free(f->body);
    f->method_path = method_path;
    f->body = body;
    f->resent = 0;
}

static void submit_as(flow_t *f, int cls, int kind, char *method_path,
                      char *body)
{
    flow_request(f, cls, kind, method_path, body);
    flow_queue(f);
}

static void submit(flow_t *f, int kind, char *method_path, char *body)
{
    submit_as(f, f->cls, kind, method_path, body);
}

static void conn_make_idle(conn_t *c)
{
    c->state = CS_IDLE;
    if (L.qhead) {
        flow_t *f = L.qhead;
        L.qhead = f->qnext;
        if (!L.qhead)
            L.qtail = NULL;
        conn_send(c, f);
    }
    else {
        L.idle[L.nidle++] = c->idx;
    }
}

static void flow_free(flow_t *f)
{
    free(f->method_path);
    free(f->body);
    if (f->cands)
        json_object_put(f->cands);
    if (f->alloc)
        json_object_put(f->alloc);
    for (int i = 0; i < f->sub.nids; i++)
        free(f->sub.ids[i]);
    free(f->sub.ids);
    free(f->sub.share);
    free(f);
    L.active--;
}

static flow_t *flow_new(int type, int cls, double sched)
{
    flow_t *f = calloc(1, sizeof *f);
    if (!f)
        die("out of memory");
    f->type = type;
    f->cls = cls;
    f->sched = f->ready = sched;
    L.active++;
    if (sched >= L.t_warm)
        L.fc.flows_started++;
    return f;
}

/* Flow counters only count flows scheduled after the warm-up. */
#define FCOUNT(f, field)            \
    do {                            \
        if ((f)->sched >= L.t_warm) \
            L.fc.field++;           \
    } while (0)

/* As submit_as, after nova's retry sleep: `retries` (nova's report client)
 * sleeps a random 0 to 2 x attempt seconds before attempts 1-3. The
 * request's latency starts when the sleep ends. */
static void submit_after_sleep(flow_t *f, int attempt, int cls, int kind,
                               char *method_path, char *body)
{
    double sleep = rng_unit(&RNG_FLOW) * 2 * attempt;
    flow_request(f, cls, kind, method_path, body);
    FCOUNT(f, retry_sleeps);
    heap_add((timer_t_){ .t = now_s() + sleep, .type = T_RESUME, .f = f });
}

/* ---- statistics of one answer ---------------------------------------------- */

static void stat_add(stat_t *s, int status, double lat, size_t bytes)
{
    s->count++;
    s->bytes += bytes;
    if (status == 0)
        s->neterr++;
    else if (status == 409)
        s->s409++;
    else if (status >= 200 && status < 300)
        s->s2xx++;
    else if (status >= 400 && status < 500)
        s->s4xx++;
    else if (status >= 500)
        s->s5xx++;
    h_add(s, lat);
}

static void record_answer(flow_t *f, int status, const char *body, size_t len,
                          size_t bytes, double now)
{
    if (f->ready >= L.t_warm) {
        stat_add(&L.kinds[f->kind], status, now - f->ready, bytes);
        stat_add(&L.classes[f->rcls], status, now - f->ready, bytes);
        if (now > L.t_last)
            L.t_last = now;
    }
    if (status >= 500 && L.n5xx_printed < 5) {
        L.n5xx_printed++;
        fprintf(stderr, "5xx: %s -> %d: %.300s\n", f->method_path, status,
                body ? body : "");
    }
    if (L.logf && status != 409 && (status < 200 || status >= 300))
        fprintf(L.logf, "%s %d %.*s\n", f->method_path, status,
                (int)(len > 300 ? 300 : len), body ? body : "");
}

/* ---- HTTP over one connection --------------------------------------------- */

static void conn_watch(conn_t *c, int want_out)
{
    struct epoll_event ev = { .events = EPOLLIN | (want_out ? EPOLLOUT : 0),
                              .data.ptr = c };
    if (want_out != c->want_out) {
        epoll_ctl(L.ep, EPOLL_CTL_MOD, c->fd, &ev);
        c->want_out = want_out;
    }
}

static void out_append(conn_t *c, const char *s, size_t n)
{
    if (c->out_len + n + 1 > c->out_cap) {
        while (c->out_len + n + 1 > c->out_cap)
            c->out_cap = c->out_cap * 2 + 1024;
        c->out = xrealloc(c->out, c->out_cap);
    }
    memcpy(c->out + c->out_len, s, n);
    c->out_len += n;
}

static void conn_flush(conn_t *c);

/* Put the flow's request on the wire (as much as the socket takes). */
static void conn_send(conn_t *c, flow_t *f)
{
    char hdr[512];
    c->out_len = c->out_off = 0;
    out_append(c, f->method_path, strlen(f->method_path)); /* "GET /path" */
    int n = snprintf(hdr, sizeof hdr,
                     " HTTP/1.1\r\nHost: %s:%d\r\nX-Auth-Token: admin\r\n"
                     "%s%s%sAccept: application/json\r\n",
                     O.host, O.port,
                     KINDS[f->kind].mv ? "OpenStack-API-Version: placement "
                                       : "",
                     KINDS[f->kind].mv ? KINDS[f->kind].mv : "",
                     KINDS[f->kind].mv ? "\r\n" : "");
    out_append(c, hdr, n);
    if (f->body) {
        size_t bl = strlen(f->body);
        n = snprintf(hdr, sizeof hdr,
                     "Content-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n",
                     bl);
        out_append(c, hdr, n);
        out_append(c, f->body, bl);
    }
    else if (strncmp(f->method_path, "GET ", 4)) {
        out_append(c, "Content-Length: 0\r\n\r\n",
                   21); /* PUT /traits/{t}, DELETE */
    }
    else {
        out_append(c, "\r\n", 2);
    }
    c->cur = f;
    c->state = CS_BUSY;
    c->in_len = c->hdr_len = c->body_len = c->scan = 0;
    c->clen = -1;
    c->chunk_left = -1;
    c->status = c->chunked = c->close_after = c->chunk_crlf = c->done_hdr = 0;
    conn_flush(c);
}

static void conn_flush(conn_t *c)
{
    while (c->out_off < c->out_len) {
        ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
                         MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EAGAIN || errno == EINTR) {
                conn_watch(c, 1);
                return;
            }
            conn_fail(c);
            return;
        }
        c->out_off += w;
    }
    conn_watch(c, 0);
}

/* Headers are complete in c->in[0..hdr_len): status and framing. */
static void parse_headers(conn_t *c)
{
    c->status = atoi(c->in + 9);
    c->done_hdr = 1;
    if (!strncmp(c->in, "HTTP/1.0", 8))
        c->close_after = 1;
    for (char *l = strstr(c->in, "\r\n"); l && l < c->in + c->hdr_len - 4;) {
        l += 2;
        char *end = strstr(l, "\r\n");
        if (!strncasecmp(l, "Content-Length:", 15))
            c->clen = atoll(l + 15);
        else if (!strncasecmp(l, "Transfer-Encoding:", 18) &&
                 memmem(l, end - l, "chunked", 7))
            c->chunked = 1;
        else if (!strncasecmp(l, "Connection:", 11) &&
                 memmem(l, end - l, "close", 5))
            c->close_after = 1;
        l = end;
    }
    if (c->status == 204 || c->status == 304 ||
        (c->status >= 100 && c->status < 200))
        c->clen = 0;
    c->scan = c->hdr_len;
}

/* Decode chunked framing in place: data moves down over the size lines
 * (each byte once). Returns 1 when the last chunk and trailers are in. */
static int dechunk(conn_t *c)
{
    char *base = c->in + c->hdr_len;
    for (;;) {
        if (c->chunk_left > 0) {
            size_t n = c->in_len - c->scan;
            if (n == 0)
                return 0;
            if ((long long)n > c->chunk_left)
                n = c->chunk_left;
            memmove(base + c->body_len, c->in + c->scan, n);
            c->body_len += n;
            c->scan += n;
            c->chunk_left -= n;
            if (c->chunk_left == 0) {
                c->chunk_crlf = 1;
                c->chunk_left = -1;
            }
            continue;
        }
        if (c->chunk_crlf) {
            if (c->in_len - c->scan < 2)
                return 0;
            c->scan += 2;
            c->chunk_crlf = 0;
        }
        char *nl = memmem(c->in + c->scan, c->in_len - c->scan, "\r\n", 2);
        if (!nl)
            return 0;
        if (c->chunk_left == -2) { /* after the last chunk: trailers */
            if (nl == c->in + c->scan)
                return 1;
            c->scan = nl + 2 - c->in;
            continue;
        }
        long long sz = strtoll(c->in + c->scan, NULL, 16);
        c->scan = nl + 2 - c->in;
        c->chunk_left = sz > 0 ? sz : -2;
    }
}

/* Is the response complete? Sets body_len. */
static int response_complete(conn_t *c)
{
    if (!c->done_hdr) {
        char *e = memmem(c->in, c->in_len, "\r\n\r\n", 4);
        if (!e)
            return 0;
        c->hdr_len = e + 4 - c->in;
        parse_headers(c);
    }
    if (c->chunked)
        return dechunk(c);
    if (c->clen >= 0) {
        if (c->in_len - c->hdr_len < (size_t)c->clen)
            return 0;
        c->body_len = c->clen;
        return 1;
    }
    return 0; /* until close */
}

/* The answer is in: stats, then the flow's next step, then the connection
 * takes the next queued request (after the flow used the body). */
static void conn_complete(conn_t *c)
{
    flow_t *f = c->cur;
    double now = now_s();
    char *body = c->in + c->hdr_len;
    body[c->body_len] = 0;
    c->cur = NULL;
    record_answer(f, c->status, body, c->body_len, c->in_len, now);
    c->reused = 1;
    flow_next(f, c->status, body, c->body_len);
    if (c->close_after) {
        close(c->fd);
        c->state = CS_DOWN;
        conn_open(c);
    }
    else {
        conn_make_idle(c);
    }
}

static void conn_read(conn_t *c)
{
    for (;;) {
        if (c->in_cap - c->in_len < 65536 + 1) {
            c->in_cap = c->in_cap < 131072 ? 131072 : c->in_cap * 2;
            c->in = xrealloc(c->in, c->in_cap);
        }
        ssize_t r = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len - 1,
                         0);
        if (r < 0) {
            if (errno == EAGAIN || errno == EINTR)
                return;
            conn_fail(c);
            return;
        }
        if (r == 0) {
            /* close: a body framed by the close is complete now */
            if (c->cur && c->done_hdr && !c->chunked && c->clen < 0) {
                c->body_len = c->in_len - c->hdr_len;
                c->close_after = 1;
                conn_complete(c);
            }
            else {
                errno = 0; /* the server closed it: no error */
                conn_fail(c);
            }
            return;
        }
        c->in_len += r;
        c->in[c->in_len] = 0;
        if (c->cur && response_complete(c)) {
            conn_complete(c);
            return;
        }
        if (!c->cur) {
            c->in_len = 0;
        } /* unsolicited bytes: ignore */
    }
}

/* The connection broke. A request that got no byte back on a kept-alive
 * connection is sent again, up to 3 times (counted in flows.resent): the
 * server closed it as the request came (httpd's event MPM closes every
 * idle keep-alive connection of a process whose workers are all busy, at
 * once); so is a GET that got no byte back on a new connection (httpd at
 * MaxRequestWorkers closes some unanswered; a GET is safe to resend). It
 * goes again on this connection, opened anew, not on another kept-alive
 * one that the same closing may have reached. Any other is a network
 * error for its flow. Then reconnect. */
static void conn_fail(conn_t *c)
{
    int err = errno; /* of the call that failed, before close() */
    flow_t *f = c->cur;
    int was_idle = c->state == CS_IDLE;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->cur = NULL;
    if (was_idle) /* drop it from the idle stack */
        for (int i = 0; i < L.nidle; i++)
            if (L.idle[i] == c->idx) {
                L.idle[i] = L.idle[--L.nidle];
                break;
            }
    c->state = CS_DOWN;
    if (f) {
        if (c->in_len == 0 && f->resent < 3 &&
            (c->reused || !strncmp(f->method_path, "GET ", 4))) {
            f->resent++;
            L.fc.resent++;
            c->resend = f;
        }
        else {
            /* why, for --log-failures: what came back before the break,
             * whether the connection had served before, the resends */
            char why[160];
            int n = snprintf(why, sizeof why,
                             "(no whole answer: %zu bytes in, %s connection, "
                             "sent again %d times, errno %d)",
                             c->in_len, c->reused ? "kept-alive" : "new",
                             f->resent, err);
            record_answer(f, 0, why, (size_t)n, c->in_len, now_s());
            flow_next(f, 0, "", 0);
        }
    }
    heap_push(now_s() + (f ? 0 : 0.05), T_RECONNECT, c->idx);
}

static void conn_open(conn_t *c)
{
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0)
        die("socket: %s", strerror(errno));
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->reused = 0;
    c->state = CS_CONNECTING;
    c->want_out = 1;
    struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.ptr = c };
    epoll_ctl(L.ep, EPOLL_CTL_ADD, c->fd, &ev);
    if (connect(c->fd, (struct sockaddr *)&L.addr, sizeof L.addr) < 0 &&
        errno != EINPROGRESS)
        conn_fail(c);
}

static void conn_event(conn_t *c, uint32_t ev)
{
    if (c->state == CS_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err || (ev & (EPOLLERR | EPOLLHUP))) {
            c->state = CS_DOWN;
            close(c->fd);
            c->fd = -1;
            heap_push(now_s() + 0.1, T_RECONNECT, c->idx);
            return;
        }
        conn_watch(c, 0);
        if (c->resend) {
            flow_t *f = c->resend;
            c->resend = NULL;
            conn_send(c, f);
        }
        else {
            conn_make_idle(c);
        }
        return;
    }
    if (ev & EPOLLOUT && c->state == CS_BUSY)
        conn_flush(c);
    if (c->fd >= 0 && (ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
        if (c->state == CS_IDLE) { /* the server closed an idle connection */
            char b[256];
            ssize_t r = recv(c->fd, b, sizeof b, 0);
            if (r == 0)
                errno = 0; /* the server closed it: no error */
            if (r <= 0 && !(r < 0 && errno == EAGAIN))
                conn_fail(c);
            return;
        }
        conn_read(c);
    }
}

/* ---- request builders --------------------------------------------------- */

static char *json_dup(json_object *o)
{
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return s;
}

static json_object *parse_body(const char *body, size_t len)
{
    json_tokener *tok = json_tokener_new_ex(64);
    json_object *o = json_tokener_parse_ex(tok, body, (int)len);
    json_tokener_free(tok);
    return o;
}

/* A 409 whose error code is placement.concurrent_update (a generation
 * race): the code is a fixed string in the body, no need to parse it. */
static int concurrent_update(int status, const char *body)
{
    return status == 409 && body && strstr(body, "placement.concurrent_update");
}

static int host_ok(int h)
{
    return h >= 0 && h < CL.ncn;
}

/* The GET /allocation_candidates of a boot or a migration, keys sorted and
 * values percent-encoded as nova's urlencode sends them (TRAFFIC.md 3). */
static char *ac_path(int vcpu, int ram, int disk, const char *rc,
                     const char *required)
{
    size_t len = 0, cap = 512;
    char *b = xmalloc(cap), tmp[128];
    len = sprintf(b, "GET /allocation_candidates?limit=1000");
    if (CL.naz && rng_unit(&RNG_FLOW) < O.az_fraction) {
        url_append(&b, &len, &cap, "&member_of=");
        snprintf(tmp, sizeof tmp, "in:%s", CL.az[rng_below(&RNG_FLOW, CL.naz)]);
        url_append(&b, &len, &cap, tmp);
    }
    if (required) {
        url_append(&b, &len, &cap, "&required=");
        url_append(&b, &len, &cap, required);
    }
    url_append(&b, &len, &cap, "&resources=");
    if (rc)
        snprintf(tmp, sizeof tmp, "%s:1", rc);
    else {
        int n = 0;
        tmp[0] = 0;
        if (disk > 0)
            n += snprintf(tmp + n, sizeof tmp - n, "DISK_GB:%d", disk);
        if (ram > 0)
            n += snprintf(tmp + n, sizeof tmp - n, "%sMEMORY_MB:%d",
                          n ? "," : "", ram);
        if (vcpu > 0)
            snprintf(tmp + n, sizeof tmp - n, "%sVCPU:%d", n ? "," : "", vcpu);
    }
    url_append(&b, &len, &cap, tmp);
    url_append(&b, &len, &cap, "&root_required=");
    url_append(&b, &len, &cap, "!COMPUTE_STATUS_DISABLED");
    return b;
}

/* {"allocations": A, "project_id": P, "user_id": U, "consumer_generation": g} */
static json_object *alloc_body(json_object *allocs, const char *p,
                               const char *u, long long gen)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "allocations",
                           allocs ? allocs : json_object_new_object());
    json_object_object_add(o, "project_id", json_object_new_string(p));
    json_object_object_add(o, "user_id", json_object_new_string(u));
    json_object_object_add(o, "consumer_generation",
                           gen < 0 ? NULL : json_object_new_int64(gen));
    return o;
}

/* Keep allocation_requests; 0 when there is none (no valid host). */
static int take_candidates(flow_t *f, const char *body, size_t len)
{
    json_object *o = parse_body(body, len), *ars = NULL;
    if (o && json_object_object_get_ex(o, "allocation_requests", &ars) &&
        json_object_is_type(ars, json_type_array) &&
        json_object_array_length(ars) > 0) {
        f->cands = json_object_get(ars);
        size_t n = json_object_array_length(ars);
        size_t sub = n < (size_t)O.host_subset ? n : (size_t)O.host_subset;
        f->cand_first = (int)rng_below(&RNG_FLOW, sub ? sub : 1);
        f->cand_n = (int)n;
        f->ci = f->attempts = f->claim = f->claimed = 0;
    }
    json_object_put(o);
    return f->cands != NULL;
}

static json_object *candidate(flow_t *f)
{
    return json_object_array_get_idx(f->cands,
                                     (f->cand_first + f->ci) % f->cand_n);
}

/* The compute owning the provider with VCPU in {rp: {resources}}: the host
 * an allocation is on (-1: none, e.g. an Ironic node). */
static int alloc_host(json_object *allocs)
{
    if (!allocs || !json_object_is_type(allocs, json_type_object))
        return -1;
    json_object_object_foreach(allocs, rp, val)
    {
        json_object *res = NULL, *v;
        if (json_object_object_get_ex(val, "resources", &res) &&
            json_object_object_get_ex(res, "VCPU", &v))
            return cn_find(rp);
    }
    return -1;
}

/* Read allocations, consumer_generation, project and user of a
 * GET /allocations/{c} answer. Returns the allocations object (owned) or NULL. */
static json_object *read_allocations(flow_t *f, const char *body, size_t len,
                                     long long *gen)
{
    json_object *o = parse_body(body, len), *a = NULL, *v;
    *gen = -1;
    if (!o)
        return NULL;
    if (json_object_object_get_ex(o, "consumer_generation", &v) && v)
        *gen = json_object_get_int64(v);
    /* usually the pool's own project/user: keep (not copy) them then, so
     * that the arena does not grow with every GET */
    if (json_object_object_get_ex(o, "project_id", &v) && v &&
        (!f->p || strcmp(f->p, json_object_get_string(v))))
        f->p = arena_strdup(json_object_get_string(v));
    if (json_object_object_get_ex(o, "user_id", &v) && v &&
        (!f->u || strcmp(f->u, json_object_get_string(v))))
        f->u = arena_strdup(json_object_get_string(v));
    if (json_object_object_get_ex(o, "allocations", &a))
        json_object_get(a);
    json_object_put(o);
    return a;
}

/* ---- sub-flows: a compute's reads of its provider tree --------------------- */

static void ids_clear(sub_t *s)
{
    for (int i = 0; i < s->nids; i++)
        free(s->ids[i]);
    s->nids = 0;
    free(s->share);
    s->share = NULL;
}

static void ids_add(sub_t *s, const char *id, int dedup)
{
    for (int i = 0; dedup && i < s->nids; i++)
        if (!strcmp(s->ids[i], id))
            return;
    *PUSH(s->ids, s->nids, s->idcap) = strdup(id);
}

/* The consumers of a GET /resource_providers/{p}/allocations answer: the
 * keys of its "allocations" object, each once across the tree. */
static void add_consumers(sub_t *s, const char *body, size_t len)
{
    json_object *o = parse_body(body, len), *a;
    if (o && json_object_object_get_ex(o, "allocations", &a) &&
        json_object_is_type(a, json_type_object)) {
        json_object_object_foreach(a, c, v)
        {
            (void)v;
            ids_add(s, c, 1);
        }
    }
    json_object_put(o);
}

/* Tree sync, TRAFFIC.md 1a steps 3-4 (get_allocations_for_provider_tree):
 * GET /resource_providers/{p}/allocations for each provider of the cached
 * tree, then GET /allocations/{c} for each distinct consumer found; T + C
 * requests, the bulk of a cloud's load. Every resource-tracker update runs
 * it (periodic, instance claim, delete, move claims: 1c). Start it with
 * sub.phase SUB_START and sub.compute set; 1 while it issued a request. */
static int tree_sync_step(flow_t *f, int status, const char *body, size_t len)
{
    sub_t *s = &f->sub;
    const compute_t *cn = &CL.cn[s->compute];
    if (s->phase == SUB_START) {
        ids_clear(s);
        s->phase = SUB_TREE;
        s->i = 0;
    }
    else if (s->phase == SUB_TREE && status == 200) {
        add_consumers(s, body, len);
    }
    if (s->phase == SUB_TREE) {
        if (s->i < cn->ntree) {
            submit_as(f, C_PERIODIC, K_RP_ALLOCS,
                      xasprintf("GET /resource_providers/%s/allocations",
                                cn->tree[s->i++]),
                      NULL);
            return 1;
        }
        s->phase = SUB_CONSUMERS;
        s->i = 0;
    }
    if (s->i < s->nids) {
        submit_as(f, C_PERIODIC, K_GET_ALLOC,
                  xasprintf("GET /allocations/%s", s->ids[s->i++]), NULL);
        return 1;
    }
    ids_clear(s);
    s->phase = SUB_START;
    return 0;
}

/* The uuids of a GET /resource_providers answer, in its order. */
static void add_providers(sub_t *s, const char *body, size_t len)
{
    json_object *o = parse_body(body, len), *a, *u;
    if (o && json_object_object_get_ex(o, "resource_providers", &a) &&
        json_object_is_type(a, json_type_array))
        for (size_t i = 0; i < json_object_array_length(a); i++)
            if (json_object_object_get_ex(json_object_array_get_idx(a, i),
                                          "uuid", &u))
                ids_add(s, json_object_get_string(u), 0);
    json_object_put(o);
}

/* The sharing-provider query for an aggregates answer, or NULL when the
 * provider is in no aggregate. Plain string formatting, so ':' and ','
 * stay as they are (TRAFFIC.md 1b step 2.5). nova chunks it per 200
 * aggregates; a provider here is in at most a few, so one query. */
static char *sharing_path(const char *body, size_t len)
{
    json_object *o = parse_body(body, len), *a;
    char *b = NULL;
    if (o && json_object_object_get_ex(o, "aggregates", &a) &&
        json_object_is_type(a, json_type_array) &&
        json_object_array_length(a) > 0) {
        size_t n = json_object_array_length(a), cap = 128 + 40 * n, l;
        b = xmalloc(cap);
        l = sprintf(b, "GET /resource_providers?member_of=in:");
        for (size_t i = 0; i < n; i++)
            l += snprintf(
                b + l, cap - l, "%s%s", i ? "," : "",
                json_object_get_string(json_object_array_get_idx(a, i)));
        snprintf(b + l, cap - l, "&required=MISC_SHARES_VIA_AGGREGATE");
    }
    json_object_put(o);
    return b;
}

/* Refresh, TRAFFIC.md 1b: GET ?in_tree, then per provider in the answer's
 * order inventories, aggregates, traits and, if it is in an aggregate, the
 * sharing query. Step 2.6 (refreshing the sharing providers found) is left
 * out: build.py's clouds have none. Same protocol as tree_sync_step. */
static int refresh_step(flow_t *f, int status, const char *body, size_t len)
{
    sub_t *s = &f->sub;
    const compute_t *cn = &CL.cn[s->compute];
    if (s->phase == SUB_START) {
        ids_clear(s);
        s->phase = SUB_IN_TREE;
        submit_as(f, C_PERIODIC, K_RP_IN_TREE,
                  xasprintf("GET /resource_providers?in_tree=%s", cn->root),
                  NULL);
        return 1;
    }
    if (s->phase == SUB_IN_TREE) {
        if (status == 200)
            add_providers(s, body, len);
        for (int i = 0; !s->nids && i < cn->ntree; i++)
            ids_add(s, cn->tree[i], 0);
        s->phase = SUB_ASSOC;
        s->i = 0;
    }
    else if (f->kind == K_RP_AGGS) {
        free(s->share);
        s->share = status == 200 ? sharing_path(body, len) : NULL;
    }
    for (; s->i < 4 * s->nids; s->i++) {
        const char *u = s->ids[s->i / 4];
        int k = (int[]){ K_RP_INV, K_RP_AGGS, K_RP_TRAITS,
                         K_RP_SHARING }[s->i % 4];
        char *path = k == K_RP_INV
                         ? xasprintf("GET /resource_providers/%s/inventories",
                                     u)
                     : k == K_RP_AGGS
                         ? xasprintf("GET /resource_providers/%s/aggregates", u)
                     : k == K_RP_TRAITS
                         ? xasprintf("GET /resource_providers/%s/traits", u)
                         : s->share;
        if (!path)
            continue;
        if (k == K_RP_SHARING)
            s->share = NULL; /* submit owns it now */
        s->i++;
        submit_as(f, C_PERIODIC, k, path, NULL);
        return 1;
    }
    ids_clear(s);
    s->phase = SUB_START;
    return 0;
}

/* The claim of TRAFFIC.md 3 steps 3-4, for a boot and a migration: per
 * attempt GET /allocations/{c} (1.28) then PUT /allocations/{c} (1.36) with
 * the candidate's allocations and mappings. A provider generation race
 * (concurrent_update, not on the consumer generation) retries the same
 * candidate after nova's sleep, 4 attempts in all; any other failure tries
 * the next candidate at once, through all of them.
 * 1 while it issued a request; then f->claimed says if it got one. */
static int claim_step(flow_t *f, int status, const char *body)
{
    const char *c = f->type == F_BOOT ? f->newc : f->c;
    if (f->claim == 2) { /* the PUT's answer */
        if (status == 204) {
            f->claimed = 1;
            f->claim = 0;
            return 0;
        }
        FCOUNT(f, claim_retries);
        if (concurrent_update(status, body) &&
            strstr(body, "consumer generation")) {
            FCOUNT(f, claim_failed); /* aborts, no next host */
            return f->claim = 0;
        }
        if (!concurrent_update(status, body) || ++f->attempts >= 4) {
            f->attempts = 0;
            if (++f->ci >= f->cand_n) {
                FCOUNT(f, claim_failed);
                return f->claim = 0;
            }
        }
    }
    else if (f->claim == 1) { /* the GET's answer */
        json_object *ar = candidate(f), *a = NULL, *m = NULL;
        json_object_object_get_ex(ar, "allocations", &a);
        json_object *o = alloc_body(json_object_get(a), f->p, f->u, -1);
        if (json_object_object_get_ex(ar, "mappings", &m))
            json_object_object_add(o, "mappings", json_object_get(m));
        f->claim = 2;
        submit_as(f, C_SCHED, K_CLAIM, xasprintf("PUT /allocations/%s", c),
                  json_dup(o));
        return 1;
    }
    f->claim = 1;
    if (f->attempts) /* the same candidate again */
        submit_after_sleep(f, f->attempts, C_SCHED, K_GET_ALLOC,
                           xasprintf("GET /allocations/%s", c), NULL);
    else
        submit_as(f, C_SCHED, K_GET_ALLOC, xasprintf("GET /allocations/%s", c),
                  NULL);
    return 1;
}

/* The claimed candidate's host. */
static int claimed_host(flow_t *f)
{
    json_object *a = NULL;
    json_object_object_get_ex(candidate(f), "allocations", &a);
    return alloc_host(a);
}

/* ---- the flows: each step handles the previous answer ------------------- */

/* Flows 1, 2 and 8, TRAFFIC.md 1 and 2: nova-compute's update_available_resource.
 * The clean-up read of the root's allocations (rack start: one more, from
 * init_host), the refresh when it is due, then the tree sync. */
static int periodic_step(flow_t *f, int status, const char *body, size_t len)
{
    if (f->pos < f->cleanups) {
        f->pos++;
        submit(f, K_CN_ALLOCS,
               xasprintf("GET /resource_providers/%s/allocations",
                         CL.cn[f->compute].root),
               NULL);
        return 1;
    }
    if (f->refresh) {
        if (refresh_step(f, status, body, len))
            return 1;
        f->refresh = 0;
    }
    return tree_sync_step(f, status, body, len);
}

enum { B_START, B_USAGES, B_AC, B_CLAIM, B_COMPUTE, B_SYNC };

/* Flow 3, TRAFFIC.md 3: a boot. /usages only when nova counts usage from
 * Placement (--quota-placement; nova's default does not), once in nova-api
 * and once in the conductor's recheck; a_c; the claim; then the compute:
 * GET /allocations/{c} and the instance claim's tree sync. */
static int boot_step(flow_t *f, int status, const char *body, size_t len)
{
    switch (f->step) {
    case B_START:
        f->step = B_USAGES;
        /* fallthrough */
    case B_USAGES:
        if (O.quota_placement && f->pos++ < 2) {
            submit(f, K_USAGES_P, xasprintf("GET /usages?project_id=%s", f->p),
                   NULL);
            return 1;
        }
        f->step = B_AC;
        if (f->rc)
            submit(f, K_AC, ac_path(0, 0, 0, f->rc, NULL), NULL);
        else
            submit(f, K_AC,
                   ac_path(f->fl->vcpu, f->fl->ram, f->fl->disk, NULL,
                           f->fl->required),
                   NULL);
        return 1;
    case B_AC:
        if (status != 200)
            return 0;
        if (!take_candidates(f, body, len)) {
            FCOUNT(f, novalidhost);
            return 0;
        }
        new_uuid(f->newc);
        f->step = B_CLAIM;
        /* fallthrough */
    case B_CLAIM:
        if (claim_step(f, status, body))
            return 1;
        if (!f->claimed)
            return 0;
        FCOUNT(f, placed);
        f->host = claimed_host(f);
        inst_add(arena_strdup(f->newc), f->p, f->u, f->host);
        f->step = B_COMPUTE;
        submit_as(f, C_PERIODIC, K_GET_ALLOC,
                  xasprintf("GET /allocations/%s", f->newc), NULL);
        return 1;
    case B_COMPUTE:
        if (!host_ok(f->host))
            return 0; /* Ironic: no tree to sync */
        f->sub.compute = f->host;
        f->step = B_SYNC;
        /* fallthrough */
    default:
        return tree_sync_step(f, status, body, len);
    }
}

/* Flow 4, TRAFFIC.md 4: a server delete with nova's default
 * reclaim_instance_interval=0: the host's tree sync (update_usage), then a
 * forced DELETE /allocations/{c} with no microversion. */
static int delete_step(flow_t *f, int status, const char *body, size_t len)
{
    switch (f->step) {
    case 0:
        f->step = 1;
        f->sub.compute = f->host;
        /* fallthrough */
    case 1:
        if (host_ok(f->host) && tree_sync_step(f, status, body, len))
            return 1;
        f->step = 2;
        submit(f, K_DEL_ALLOC, xasprintf("DELETE /allocations/%s", f->c), NULL);
        return 1;
    default:
        if (status == 204)
            FCOUNT(f, deleted);
        else if (status == 404)
            FCOUNT(f, skipped);
        return 0;
    }
}

/* POST /allocations moving allocations A from consumer `from` to `to`
 * (move_allocations, TRAFFIC.md 5 step 4): from gets {} with its
 * generation, to gets A as read, entries still carrying "generation". */
static void migrate_move(flow_t *f, const char *from, long long gen_from,
                         const char *to, long long gen_to, json_object *a)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, from, alloc_body(NULL, f->p, f->u, gen_from));
    json_object_object_add(o, to, alloc_body(a, f->p, f->u, gen_to));
    submit(f, K_POST_ALLOCS, xasprintf("POST /allocations"), json_dup(o));
}

/* The instance's VCPU, RAM and disk from its allocations on the host. */
static int migrate_size(flow_t *f, json_object *a)
{
    json_object_object_foreach(a, rp, val)
    {
        json_object *res = NULL, *v;
        (void)rp;
        if (!json_object_object_get_ex(val, "resources", &res) ||
            !json_object_object_get_ex(res, "VCPU", &v))
            continue;
        f->vcpu = json_object_get_int(v);
        f->ram = json_object_object_get_ex(res, "MEMORY_MB", &v)
                     ? json_object_get_int(v)
                     : 0;
        f->disk = json_object_object_get_ex(res, "DISK_GB", &v)
                      ? json_object_get_int(v)
                      : 0;
    }
    return f->vcpu > 0;
}

/* The pool's record of the instance follows it to its new host. */
static void pool_move(const char *c, int host)
{
    for (size_t i = 0; i < CL.nin; i++)
        if (CL.in[i].c == c) {
            CL.in[i].host = host;
            return;
        }
}

enum {
    M_START,
    M_READ,
    M_GET_C,
    M_GET_M,
    M_POST,
    M_AC,
    M_CLAIM,
    M_PREP,
    M_DSYNC,
    M_FINISH,
    M_CONF_GET,
    M_CONF_PUT,
    M_SSYNC,
    M_BACK_M,
    M_BACK_C,
    M_BACK_POST
};

/* move_allocations' POST answered other than 204. A provider generation
 * race (concurrent_update, not on a consumer generation) redoes the move,
 * its two reads from `source` on, after nova's sleep: 4 attempts in all
 * (nova's `retries`). Anything else ends the move. 1 when it is redone. */
static int move_retry(flow_t *f, int status, const char *body, int step,
                      const char *source)
{
    if (status == 409)
        FCOUNT(f, migrate_conflict);
    if (!concurrent_update(status, body) ||
        strstr(body, "consumer generation") || ++f->attempts >= 4) {
        f->attempts = 0;
        return 0;
    }
    f->step = step;
    submit_after_sleep(f, f->attempts, f->cls, K_GET_ALLOC,
                       xasprintf("GET /allocations/%s", source), NULL);
    return 1;
}

/* Give the allocations back to the instance, as the conductor's
 * revert_allocation_for_migration does when no host could be claimed
 * (TRAFFIC.md 5 step 7): move_allocations M -> c, GET M, GET c, POST. */
static int migrate_revert(flow_t *f)
{
    f->attempts = 0;
    f->step = M_BACK_M;
    submit(f, K_GET_ALLOC, xasprintf("GET /allocations/%s", f->mig), NULL);
    return 1;
}

/* The give-back after migrate_revert's GET of M: GET c, then the POST. */
static int migrate_back_step(flow_t *f, int status, const char *body,
                             size_t len)
{
    switch (f->step) {
    case M_BACK_M:
        if (status != 200)
            return 0;
        json_object_put(f->alloc);
        f->alloc = read_allocations(f, body, len, &f->gen2);
        f->step = M_BACK_C;
        submit(f, K_GET_ALLOC, xasprintf("GET /allocations/%s", f->c), NULL);
        return 1;
    case M_BACK_C:
        json_object_put(read_allocations(f, body, len, &f->gen));
        f->step = M_BACK_POST;
        migrate_move(f, f->mig, f->gen2, f->c, f->gen,
                     json_object_get(f->alloc));
        return 1;
    default: /* M_BACK_POST */
        return status != 204 && move_retry(f, status, body, M_BACK_M, f->mig);
    }
}

/* Flow 5, TRAFFIC.md 5: a cold migration, confirmed. The conductor swaps
 * the instance's allocations to a migration consumer M; the scheduler
 * claims the destination for the instance (consumer_generation null: the
 * swap emptied it, so Placement deleted it); the destination compute
 * reads and syncs; the confirm empties M and the source syncs. */
static int migrate_step(flow_t *f, int status, const char *body, size_t len)
{
    json_object *a;
    switch (f->step) {
    case M_START:
        f->step = M_READ;
        submit(f, K_GET_ALLOC, xasprintf("GET /allocations/%s", f->c), NULL);
        return 1;
    case M_READ: /* replace_allocation_with_migration's read */
        if (status != 200)
            return 0;
        a = read_allocations(f, body, len, &f->gen);
        f->host = alloc_host(a);
        json_object_put(a);
        if (f->host < 0) {
            FCOUNT(f, skipped);
            return 0;
        } /* gone, or Ironic */
        new_uuid(f->mig);
        f->step = M_GET_C;
        submit(f, K_GET_ALLOC, xasprintf("GET /allocations/%s", f->c), NULL);
        return 1;
    case M_GET_C: /* move_allocations: source, then target */
        if (status != 200)
            return 0;
        json_object_put(f->alloc); /* a redone move's earlier read */
        f->alloc = read_allocations(f, body, len, &f->gen);
        if (!f->alloc || !migrate_size(f, f->alloc)) {
            FCOUNT(f, skipped);
            return 0;
        }
        f->step = M_GET_M;
        submit(f, K_GET_ALLOC, xasprintf("GET /allocations/%s", f->mig), NULL);
        return 1;
    case M_GET_M:
        f->step = M_POST;
        migrate_move(f, f->c, f->gen, f->mig, -1, json_object_get(f->alloc));
        return 1;
    case M_POST:
        if (status != 204)
            return move_retry(f, status, body, M_GET_C, f->c);
        f->attempts = 0;
        f->step = M_AC;
        submit(f, K_AC, ac_path(f->vcpu, f->ram, f->disk, NULL, NULL), NULL);
        return 1;
    case M_AC:
        if (status != 200 || !take_candidates(f, body, len)) {
            if (status == 200)
                FCOUNT(f, novalidhost);
            return migrate_revert(f);
        }
        f->step = M_CLAIM;
        /* fallthrough */
    case M_CLAIM:
        if (claim_step(f, status, body))
            return 1;
        if (!f->claimed)
            return migrate_revert(f);
        f->dest = claimed_host(f);
        f->step = M_PREP; /* dest compute: _prep_resize */
        submit_as(f, C_PERIODIC, K_GET_ALLOC,
                  xasprintf("GET /allocations/%s", f->c), NULL);
        return 1;
    case M_PREP:
        f->sub.compute = f->dest;
        f->step = M_DSYNC;
        /* fallthrough */
    case M_DSYNC: /* the move claim's sync, then _finish_resize */
        if (host_ok(f->dest) && tree_sync_step(f, status, body, len))
            return 1;
        f->step = M_FINISH;
        submit_as(f, C_PERIODIC, K_GET_ALLOC,
                  xasprintf("GET /allocations/%s", f->c), NULL);
        return 1;
    case M_FINISH: /* confirm at the source */
        f->step = M_CONF_GET;
        submit_as(f, C_PERIODIC, K_GET_ALLOC,
                  xasprintf("GET /allocations/%s", f->mig), NULL);
        return 1;
    case M_CONF_GET:
        json_object_put(read_allocations(f, body, len, &f->gen2));
        f->step = M_CONF_PUT;
        submit_as(f, C_DELETE, K_PUT_ALLOC,
                  xasprintf("PUT /allocations/%s", f->mig),
                  json_dup(alloc_body(NULL, f->p, f->u, f->gen2)));
        return 1;
    case M_CONF_PUT:
        if (status == 204) {
            FCOUNT(f, migrated);
            pool_move(f->c, f->dest);
        }
        f->sub.compute = f->host;
        f->step = M_SSYNC;
        /* fallthrough */
    case M_SSYNC: /* drop_move_claim_at_source */
        return host_ok(f->host) && tree_sync_step(f, status, body, len);
    default:
        return migrate_back_step(f, status, body, len);
    }
}

/* Flow 6, TRAFFIC.md 7: three osc-placement commands; each run negotiates
 * with GET / at 1.29, then sends its request at 1.29. */
static int listing_step(flow_t *f)
{
    int cmd = f->step / 2;
    if (f->step++ % 2 == 0) {
        if (cmd > 2 || (cmd == 1 && !CL.ncn) || (cmd == 2 && !CL.npu))
            return 0;
        submit(f, K_OSC_ROOT, xasprintf("GET /"), NULL);
        return 1;
    }
    if (cmd == 0)
        submit(f, K_RP_LIST, xasprintf("GET /resource_providers"), NULL);
    else if (cmd == 1)
        submit(f, K_RP_USAGES,
               xasprintf("GET /resource_providers/%s/usages",
                         CL.cn[rng_below(&RNG_FLOW, CL.ncn)].root),
               NULL);
    else
        submit(f, K_OSC_USAGES,
               xasprintf("GET /usages?project_id=%s",
                         CL.pu[rng_below(&RNG_FLOW, CL.npu)].p),
               NULL);
    return 1;
}

/* Flow 7, TRAFFIC.md 6: neutron's placement sync of one OVS agent, as one
 * list of operations (op, bridge index). The vnic-type traits are the two
 * build.py's providers carry (OVS supports 4, and also PUTs
 * CUSTOM_NETWORK_TUNNEL_PROVIDER: left out so that the run creates no
 * traits); the agent's packet-rate inventory PUT (step 10) is left out. */
enum {
    N_NAME,
    N_PHYSNET,
    N_VNIC,
    N_PUT_AGENT,
    N_PUT_DEV,
    N_DEV_TRAITS,
    N_AGENT_TRAITS,
    N_DEV_INV
};
static const char *VNIC[2] = { "CUSTOM_VNIC_TYPE_NORMAL",
                               "CUSTOM_VNIC_TYPE_DIRECT" };

static void neutron_plan(flow_t *f, int ndev)
{
    static const int per_dev[] = { N_NAME,         N_PHYSNET, -1,
                                   N_PUT_AGENT,    N_PUT_DEV, N_DEV_TRAITS,
                                   N_AGENT_TRAITS, N_DEV_INV };
    if (ndev > 4)
        ndev = 4;
    f->nops = 0;
    for (size_t k = 0; k < sizeof per_dev / sizeof *per_dev; k++) {
        int n = per_dev[k] == N_AGENT_TRAITS ? 1 : per_dev[k] < 0 ? 2 : ndev;
        for (int d = 0; d < n; d++) {
            f->ops[f->nops][0] = per_dev[k] < 0 ? N_VNIC : per_dev[k];
            f->ops[f->nops++][1] = d;
        }
    }
    f->op = -1;
}

/* PUT /resource_providers/{u} {name, parent_provider_uuid} (neutron-lib's
 * ensure_resource_provider); names as build.py gives them. */
static void neutron_put_rp(flow_t *f, const char *u, const char *parent,
                           const char *name)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(name));
    json_object_object_add(o, "parent_provider_uuid",
                           json_object_new_string(parent));
    submit(f, K_NEU_PUT_RP, xasprintf("PUT /resource_providers/%s", u),
           json_dup(o));
}

/* The first request of the current operation. */
static int neutron_request(flow_t *f)
{
    const compute_t *cn = &CL.cn[f->compute];
    int op = f->ops[f->op][0], d = f->ops[f->op][1];
    char name[256];
    switch (op) {
    case N_NAME: /* neutron looks the hypervisor up once per bridge */
        submit(f, K_NEU_BY_NAME,
               xasprintf("GET /resource_providers?name=%s", cn->host), NULL);
        break;
    case N_PHYSNET:
        submit(f, K_NEU_TRAIT,
               xasprintf("PUT /traits/CUSTOM_PHYSNET_PHYSNET%d", d), NULL);
        break;
    case N_VNIC:
        submit(f, K_NEU_TRAIT, xasprintf("PUT /traits/%s", VNIC[d]), NULL);
        break;
    case N_PUT_AGENT:
        snprintf(name, sizeof name, "%s:Open vSwitch agent", cn->host);
        neutron_put_rp(f, cn->agent, cn->root, name);
        break;
    case N_PUT_DEV:
        snprintf(name, sizeof name, "%s:Open vSwitch agent:br-phy%d", cn->host,
                 d);
        neutron_put_rp(f, cn->devs[d], cn->agent, name);
        break;
    case N_DEV_INV: /* see neutron_put */
        f->pos = 1;
        submit(f, K_NEU_GET_INV,
               xasprintf("GET /resource_providers/%s/inventories", cn->devs[d]),
               NULL);
        break;
    default: /* the GET only fetches the generation */
        f->pos = 1;
        submit(f, K_NEU_GET_RP,
               xasprintf("GET /resource_providers/%s",
                         op == N_AGENT_TRAITS ? cn->agent : cn->devs[d]),
               NULL);
    }
    return 1;
}

/* The PUT after a GET: traits as build.py set them, or the inventories.
 * neutron PUTs the bandwidth it is configured with, after a GET of the
 * provider; the description has no totals, so this GETs the inventories
 * instead (one GET all the same, which also gives the generation) and
 * PUTs them back unchanged. */
static int neutron_put(flow_t *f, int status, const char *body, size_t len)
{
    const compute_t *cn = &CL.cn[f->compute];
    int op = f->ops[f->op][0], d = f->ops[f->op][1];
    json_object *o = status == 200 ? parse_body(body, len) : NULL, *g = NULL;
    if (o && !json_object_object_get_ex(o, "resource_provider_generation", &g))
        json_object_object_get_ex(o, "generation", &g);
    f->pos = 2;
    if (!g) {
        json_object_put(o);
        return 0;
    } /* skip to the next op */
    if (op == N_DEV_INV) {
        submit(f, K_NEU_PUT_INV,
               xasprintf("PUT /resource_providers/%s/inventories", cn->devs[d]),
               json_dup(o));
        return 1;
    }
    json_object *b = json_object_new_object(), *t = json_object_new_array();
    char physnet[64];
    snprintf(physnet, sizeof physnet, "CUSTOM_PHYSNET_PHYSNET%d", d);
    if (op == N_DEV_TRAITS)
        json_object_array_add(t, json_object_new_string(physnet));
    for (int v = 0; v < 2; v++)
        json_object_array_add(t, json_object_new_string(VNIC[v]));
    json_object_object_add(b, "traits", t);
    json_object_object_add(b, "resource_provider_generation",
                           json_object_get(g));
    json_object_put(o);
    submit(f, K_NEU_RP_TRAITS,
           xasprintf("PUT /resource_providers/%s/traits",
                     op == N_AGENT_TRAITS ? cn->agent : cn->devs[d]),
           json_dup(b));
    return 1;
}

/* One operation after the other; a GET + PUT pair is redone on a 409
 * concurrent_update, 10 tries in all (TRAFFIC.md 6 step 7). */
static int neutron_step(flow_t *f, int status, const char *body, size_t len)
{
    if (f->pos == 1 && neutron_put(f, status, body, len))
        return 1;
    if (f->pos == 2 && status == 409)
        FCOUNT(f, conflicts);
    if (f->pos == 2 && concurrent_update(status, body) && ++f->retries < 10)
        return neutron_request(f);
    f->pos = f->retries = 0;
    if (++f->op >= f->nops)
        return 0;
    return neutron_request(f);
}

/* Flow 9, TRAFFIC.md 2's very first start of a brand-new compute: nova
 * finds no provider in its tree, makes it, reads its allocations (none),
 * sets the libvirt inventory at generation 0, asks which of its traits
 * Placement knows and sets them at the generation the inventory's answer
 * gave. Its traits (NT) are standard ones, all known: no PUT /traits/{t}. */
enum new_compute_step {
    NEW_START,
    NEW_IN_TREE,
    NEW_POST,
    NEW_ALLOCS,
    NEW_INV,
    NEW_TRAITS_IN,
    NEW_SET_TRAITS
};

/* The inventory nova's libvirt driver reports for build.py's computes. */
static json_object *new_inventory(void)
{
    static const struct {
        const char *rc;
        int total, reserved;
        double ratio;
    } INV[] = { { "VCPU", 64, 0, 4.0 },
                { "MEMORY_MB", 262144, 512, 1.0 },
                { "DISK_GB", 2000, 0, 1.0 } };
    json_object *all = json_object_new_object();
    for (size_t i = 0; i < sizeof INV / sizeof INV[0]; i++) {
        json_object *r = json_object_new_object();
        json_object_object_add(r, "total", json_object_new_int(INV[i].total));
        json_object_object_add(r, "reserved",
                               json_object_new_int(INV[i].reserved));
        json_object_object_add(r, "min_unit", json_object_new_int(1));
        json_object_object_add(r, "max_unit",
                               json_object_new_int(INV[i].total));
        json_object_object_add(r, "step_size", json_object_new_int(1));
        json_object_object_add(r, "allocation_ratio",
                               json_object_new_double(INV[i].ratio));
        json_object_object_add(all, INV[i].rc, r);
    }
    json_object *b = json_object_new_object();
    json_object_object_add(b, "resource_provider_generation",
                           json_object_new_int(0));
    json_object_object_add(b, "inventories", all);
    return b;
}

/* The PUT of its traits: every name of NT at generation gen. */
static json_object *new_traits_body(long long gen)
{
    json_object *t = json_object_new_array();
    char *names = strdup(CL.new_traits), *save = NULL;
    for (char *n = strtok_r(names, ",", &save); n;
         n = strtok_r(NULL, ",", &save))
        json_object_array_add(t, json_object_new_string(n));
    free(names);
    json_object *b = json_object_new_object();
    json_object_object_add(b, "traits", t);
    json_object_object_add(b, "resource_provider_generation",
                           json_object_new_int64(gen));
    return b;
}

static int new_compute_step(flow_t *f, int status, const char *body, size_t len)
{
    json_object *o, *g = NULL;
    switch (f->step) {
    case NEW_START:
        new_uuid(f->newc);
        f->step = NEW_IN_TREE;
        submit(f, K_RP_IN_TREE,
               xasprintf("GET /resource_providers?in_tree=%s", f->newc), NULL);
        return 1;
    case NEW_IN_TREE: /* an empty list */
        if (status != 200)
            return 0;
        o = json_object_new_object();
        json_object_object_add(o, "uuid", json_object_new_string(f->newc));
        json_object_object_add(o, "name", json_object_new_string(f->newc));
        f->step = NEW_POST;
        submit(f, K_NEW_RP, xasprintf("POST /resource_providers"), json_dup(o));
        return 1;
    case NEW_POST:
        if (status != 200)
            return 0;
        f->step = NEW_ALLOCS;
        submit(f, K_RP_ALLOCS,
               xasprintf("GET /resource_providers/%s/allocations", f->newc),
               NULL);
        return 1;
    case NEW_ALLOCS:
        f->step = NEW_INV;
        submit(f, K_NEW_INV,
               xasprintf("PUT /resource_providers/%s/inventories", f->newc),
               json_dup(new_inventory()));
        return 1;
    case NEW_INV:
        o = status == 200 ? parse_body(body, len) : NULL;
        if (!o ||
            !json_object_object_get_ex(o, "resource_provider_generation", &g)) {
            json_object_put(o);
            return 0;
        }
        f->gen = json_object_get_int64(g);
        json_object_put(o);
        f->step = NEW_TRAITS_IN;
        submit(f, K_TRAITS_IN,
               xasprintf("GET /traits?name=in:%s", CL.new_traits), NULL);
        return 1;
    case NEW_TRAITS_IN:
        if (status != 200)
            return 0;
        f->step = NEW_SET_TRAITS;
        submit(f, K_NEW_TRAITS,
               xasprintf("PUT /resource_providers/%s/traits", f->newc),
               json_dup(new_traits_body(f->gen)));
        return 1;
    default: /* NEW_SET_TRAITS */
        if (status == 200)
            FCOUNT(f, computes_new);
        return 0;
    }
}

static int flood_step(flow_t *f)
{
    f->step++;
    if (now_s() >= L.t_end)
        return 0;
    submit(f, K_FLOOD, xasprintf("GET %s", O.flood), NULL);
    return 1;
}

/* Advance a flow after an answer (status 0: network error, or the start).
 * The next step is ready now: its latency starts here. */
static void flow_next(flow_t *f, int status, const char *body, size_t len)
{
    int more;
    if (f->started)
        f->ready = now_s();
    f->started = 1;
    switch (f->type) {
    case F_PERIODIC:
    case F_RACK:
        more = periodic_step(f, status, body, len);
        break;
    case F_BOOT:
        more = boot_step(f, status, body, len);
        break;
    case F_DELETE:
        more = delete_step(f, status, body, len);
        break;
    case F_MIGRATE:
        more = migrate_step(f, status, body, len);
        break;
    case F_LISTING:
        more = listing_step(f);
        break;
    case F_NEUTRON:
        more = neutron_step(f, status, body, len);
        break;
    case F_NEW:
        more = new_compute_step(f, status, body, len);
        break;
    default:
        more = flood_step(f);
        break;
    }
    if (!more)
        flow_free(f);
}

/* ---- the schedule ----------------------------------------------------- */

static void start_boot(double t)
{
    if (!CL.npu)
        return;
    flow_t *f = flow_new(F_BOOT, C_SCHED, t);
    const pu_t *pu = &CL.pu[rng_below(&RNG_FLOW, CL.npu)];
    f->p = pu->p;
    f->u = pu->u;
    if (CL.nir && rng_unit(&RNG_FLOW) < O.baremetal) {
        f->rc = CL.ir[rng_below(&RNG_FLOW, CL.nir)].rc;
        FCOUNT(f, baremetal);
    }
    else if (CL.nfl) {
        f->fl = &CL.fl[rng_below(&RNG_FLOW, CL.nfl)];
    }
    else {
        flow_free(f);
        return;
    }
    flow_next(f, 0, NULL, 0);
}

/* Delete takes the instance out of the pool; migrate leaves it in. */
static void start_instance_flow(int type, int cls, double t)
{
    if (!CL.nin)
        return;
    size_t i = rng_below(&RNG_FLOW, CL.nin);
    flow_t *f = flow_new(type, cls, t);
    f->c = CL.in[i].c;
    f->p = CL.in[i].p;
    f->u = CL.in[i].u;
    f->host = CL.in[i].host;
    if (type == F_DELETE)
        CL.in[i] = CL.in[--CL.nin];
    flow_next(f, 0, NULL, 0);
}

/* A periodic refreshes on every K-th run of its compute (TRAFFIC.md 0:
 * ~360 s with nova's defaults); a restart (rack) always does, and its
 * next refresh is K periodics later. */
static void start_compute_flow(int type, int compute, double t)
{
    compute_t *cn = &CL.cn[compute];
    if (type == F_NEUTRON && (!cn->agent || !cn->ndev))
        return;
    flow_t *f = flow_new(type, type == F_NEUTRON ? C_NEUTRON : C_PERIODIC, t);
    f->compute = f->sub.compute = compute;
    if (type == F_PERIODIC) {
        f->cleanups = 1;
        f->refresh = O.refresh_k > 0 && ++cn->nper % O.refresh_k == 0;
    }
    else if (type == F_RACK) {
        f->cleanups = 2;
        f->refresh = 1;
        cn->nper = 0;
    }
    else {
        neutron_plan(f, cn->ndev);
    }
    flow_next(f, 0, NULL, 0);
}

/* A timer fired at `now` for time t: start its flow(s) and schedule the
 * next one while it is before the end of the run. */
static void fire(timer_t_ tm, double now)
{
    double next = -1;
    if (tm.type == T_RECONNECT) {
        if (L.conns[tm.idx].state == CS_DOWN)
            conn_open(&L.conns[tm.idx]);
        return;
    }
    if (tm.type == T_RESUME) { /* even past the end: the flow finishes */
        tm.f->ready = tm.t;
        flow_queue(tm.f);
        return;
    }
    if (tm.t >= L.t_end)
        return;
    if (tm.t >= L.t_warm)
        h_add(&L.lag, now - tm.t);
    switch (tm.type) {
    case T_PERIODIC:
        /* fixed start-to-start spacing, as oslo.service runs it (TRAFFIC.md 0) */
        start_compute_flow(F_PERIODIC, tm.idx, tm.t);
        next = tm.t + O.periodic;
        break;
    case T_BOOT:
        start_boot(tm.t);
        next = tm.t + rng_exp(&RNG_SCHED, O.boot_rate);
        break;
    case T_DELETE:
        start_instance_flow(F_DELETE, C_DELETE, tm.t);
        next = tm.t + rng_exp(&RNG_SCHED, O.delete_rate);
        break;
    case T_MIGRATE:
        start_instance_flow(F_MIGRATE, C_SCHED, tm.t);
        next = tm.t + rng_exp(&RNG_SCHED, O.migrate_rate);
        break;
    case T_NEUTRON:
        if (CL.ncn)
            start_compute_flow(F_NEUTRON, rng_below(&RNG_FLOW, CL.ncn), tm.t);
        next = tm.t + rng_exp(&RNG_SCHED, O.neutron_rate);
        break;
    case T_LISTING: {
        flow_t *f = flow_new(F_LISTING, C_LISTING, tm.t);
        flow_next(f, 0, NULL, 0);
        next = tm.t + O.list_interval;
        break;
    }
    case T_NEW:
        for (int k = 0; k < O.new_k; k++)
            flow_next(flow_new(F_NEW, C_RACK, tm.t), 0, NULL, 0);
        break;
    case T_RACK: {
        int first = (int)rng_below(&RNG_SCHED, CL.ncn);
        for (int k = 0; k < O.rack_k && k < CL.ncn; k++)
            start_compute_flow(F_RACK, (first + k) % CL.ncn, tm.t);
        break;
    }
    }
    if (next >= 0 && next < L.t_end)
        heap_push(next, tm.type, tm.idx);
}

static void schedule_start(void)
{
    double t0 = L.t0;
    if (O.flood) {
        for (int i = 0; i < O.conns; i++) {
            flow_t *f = flow_new(F_FLOOD, C_FLOOD, t0);
            flow_next(f, 0, NULL, 0);
        }
        return;
    }
    for (int i = 0; i < CL.ncn; i++) {
        /* a random first run (periodic_fuzzy_delay), and a random place in
         * the refresh cycle: the computes did not all start together */
        if (O.periodic > 0)
            heap_push(t0 + rng_unit(&RNG_SCHED) * O.periodic, T_PERIODIC, i);
        if (O.refresh_k > 0)
            CL.cn[i].nper = (int)rng_below(&RNG_SCHED, O.refresh_k);
    }
    if (O.boot_rate > 0)
        heap_push(t0 + rng_exp(&RNG_SCHED, O.boot_rate), T_BOOT, 0);
    if (O.delete_rate > 0)
        heap_push(t0 + rng_exp(&RNG_SCHED, O.delete_rate), T_DELETE, 0);
    if (O.migrate_rate > 0)
        heap_push(t0 + rng_exp(&RNG_SCHED, O.migrate_rate), T_MIGRATE, 0);
    if (O.neutron_rate > 0)
        heap_push(t0 + rng_exp(&RNG_SCHED, O.neutron_rate), T_NEUTRON, 0);
    if (O.list_interval > 0)
        heap_push(t0 + rng_unit(&RNG_SCHED) * O.list_interval, T_LISTING, 0);
    if (O.rack_k > 0 && CL.ncn)
        heap_push(t0 + O.rack_t, T_RACK, 0);
    if (O.new_k > 0) {
        if (!CL.new_traits)
            die("--new-computes: the description has no NT record (write it "
                "again with build.py)");
        heap_push(t0 + O.new_t, T_NEW, 0);
    }
}

/* ---- the loop ----------------------------------------------------------- */

/* epoll_pwait2 waits to the microsecond (epoll_wait's milliseconds would
 * make every flow up to 1 ms late); kernels or valgrind without it get the
 * rounded-up epoll_wait. */
static int wait_events(struct epoll_event *evs, int max, double wait)
{
    static int no_pwait2;
    int n = -1;
    if (!no_pwait2) {
        struct timespec ts = { (time_t)wait,
                               (long)((wait - (time_t)wait) * 1e9) };
        n = epoll_pwait2(L.ep, evs, max, &ts, NULL);
        if (n < 0 && errno == ENOSYS)
            no_pwait2 = 1;
    }
    if (no_pwait2)
        n = epoll_wait(L.ep, evs, max, (int)ceil(wait * 1000));
    if (n < 0 && errno != EINTR)
        die("epoll: %s", strerror(errno));
    return n < 0 ? 0 : n;
}

static void run_loop(void)
{
    struct epoll_event evs[256];
    for (;;) {
        double now = now_s();
        while (L.nheap && L.heap[0].t <= now)
            fire(heap_pop(), now);
        if (now >= L.t_end && (L.active == 0 || now >= L.t_end + 30))
            break;
        double wait = L.nheap ? L.heap[0].t - now : 0.1;
        if (wait > 0.1)
            wait = 0.1;
        if (wait < 0)
            wait = 0;
        int n = wait_events(evs, 256, wait);
        for (int i = 0; i < n; i++)
            conn_event(evs[i].data.ptr, evs[i].events);
    }
    L.fc.flows_unfinished = L.active;
}

/* ---- report ------------------------------------------------------------- */

static json_object *stat_json(const stat_t *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "count", json_object_new_int64(s->count));
    json_object_object_add(o, "2xx", json_object_new_int64(s->s2xx));
    json_object_object_add(o, "409", json_object_new_int64(s->s409));
    json_object_object_add(o, "4xx", json_object_new_int64(s->s4xx));
    json_object_object_add(o, "5xx", json_object_new_int64(s->s5xx));
    json_object_object_add(o, "neterr", json_object_new_int64(s->neterr));
    json_object_object_add(o, "p50_ms",
                           json_object_new_double(h_percentile_ms(s, 0.50)));
    json_object_object_add(o, "p90_ms",
                           json_object_new_double(h_percentile_ms(s, 0.90)));
    json_object_object_add(o, "p99_ms",
                           json_object_new_double(h_percentile_ms(s, 0.99)));
    json_object_object_add(o, "max_ms",
                           json_object_new_double(s->max_us / 1000.0));
    json_object_object_add(o, "bytes", json_object_new_int64(s->bytes));
    return o;
}

static json_object *config_json(void)
{
    json_object *o = json_object_new_object();
#define CS(k, v) \
    json_object_object_add(o, k, (v) ? json_object_new_string(v) : NULL)
#define CD(k, v) json_object_object_add(o, k, json_object_new_double(v))
#define CI(k, v) json_object_object_add(o, k, json_object_new_int64(v))
    CS("desc", O.desc);
    CS("host", O.host);
    CI("port", O.port);
    CI("conns", O.conns);
    CS("flood", O.flood);
    CI("computes", CL.ncn);
    CD("periodic", O.periodic);
    CD("refresh", O.refresh);
    CI("refresh_every", O.refresh_k);
    CI("quota_placement", O.quota_placement);
    CD("boot_rate", O.boot_rate);
    CD("baremetal", O.baremetal);
    CD("az_fraction", O.az_fraction);
    CI("host_subset", O.host_subset);
    CD("delete_rate", O.delete_rate);
    CD("migrate_rate", O.migrate_rate);
    CD("list_interval", O.list_interval);
    CD("neutron_rate", O.neutron_rate);
    CI("rack_k", O.rack_k);
    CD("rack_t", O.rack_t);
    CI("new_k", O.new_k);
    CD("new_t", O.new_t);
    CD("duration", O.duration);
    CD("warmup", O.warmup);
    CI("seed", (long long)O.seed);
    json_object *mv = json_object_new_object();
    for (int k = 0; k < K_COUNT; k++)
        json_object_object_add(
            mv, KINDS[k].name,
            json_object_new_string(KINDS[k].mv ? KINDS[k].mv : "none"));
    json_object_object_add(o, "microversions", mv);
    return o;
}

static json_object *flows_json(void)
{
    json_object *o = json_object_new_object();
#define FJ(n) json_object_object_add(o, #n, json_object_new_int64(L.fc.n))
    FJ(flows_started);
    FJ(flows_unfinished);
    FJ(placed);
    FJ(novalidhost);
    FJ(claim_retries);
    FJ(claim_failed);
    FJ(deleted);
    FJ(migrated);
    FJ(skipped);
    FJ(migrate_conflict);
    FJ(conflicts);
    FJ(baremetal);
    FJ(resent);
    FJ(retry_sleeps);
    FJ(computes_new);
    FJ(stale);
    json_object_object_add(o, "instances_in_pool",
                           json_object_new_int64(CL.nin));
    return o;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
           ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static void print_row(const char *name, const stat_t *s)
{
    printf(
        "%-46s %8llu %8llu %6llu %6llu %5llu %5llu %8.2f %8.2f %8.2f %9.2f\n",
        name, (unsigned long long)s->count, (unsigned long long)s->s2xx,
        (unsigned long long)s->s409, (unsigned long long)s->s4xx,
        (unsigned long long)s->s5xx, (unsigned long long)s->neterr,
        h_percentile_ms(s, .5), h_percentile_ms(s, .9), h_percentile_ms(s, .99),
        s->max_us / 1000.0);
}

static void report(double t_stop)
{
    uint64_t total = 0;
    for (int c = 0; c < C_COUNT; c++)
        total += L.classes[c].count;
    double span = (L.t_last > L.t_warm ? L.t_last : t_stop) - L.t_warm;
    double rps = span > 0 ? total / span : 0, cpu = cpu_seconds();
    json_object *root = json_object_new_object(),
                *ov = json_object_new_object();
    json_object *cls = json_object_new_object(),
                *kinds = json_object_new_object();
    json_object_object_add(ov, "requests", json_object_new_int64(total));
    json_object_object_add(ov, "requests_per_s", json_object_new_double(rps));
    json_object_object_add(ov, "duration_s",
                           json_object_new_double(t_stop - L.t0));
    json_object_object_add(ov, "measured_s", json_object_new_double(span));
    json_object_object_add(
        ov, "lag_p99_ms", json_object_new_double(h_percentile_ms(&L.lag, .99)));
    json_object_object_add(ov, "lag_max_ms",
                           json_object_new_double(L.lag.max_us / 1000.0));
    json_object_object_add(ov, "cpu_s", json_object_new_double(cpu));
    for (int c = 0; c < C_COUNT; c++)
        if (L.classes[c].count)
            json_object_object_add(cls, CLASS_NAMES[c],
                                   stat_json(&L.classes[c]));
    for (int k = 0; k < K_COUNT; k++)
        if (L.kinds[k].count)
            json_object_object_add(kinds, KINDS[k].name,
                                   stat_json(&L.kinds[k]));
    json_object_object_add(root, "config", config_json());
    json_object_object_add(root, "overall", ov);
    json_object_object_add(root, "classes", cls);
    json_object_object_add(root, "kinds", kinds);
    json_object_object_add(root, "flows", flows_json());
    if (O.out &&
        json_object_to_file_ext(O.out, root, JSON_C_TO_STRING_PRETTY) < 0)
        fprintf(stderr, "cloudload: cannot write %s\n", O.out);
    json_object_put(root);

    printf("%-46s %8s %8s %6s %6s %5s %5s %8s %8s %8s %9s\n", "kind / class",
           "count", "2xx", "409", "4xx", "5xx", "err", "p50ms", "p90ms",
           "p99ms", "max_ms");
    for (int k = 0; k < K_COUNT; k++)
        if (L.kinds[k].count)
            print_row(KINDS[k].name, &L.kinds[k]);
    for (int c = 0; c < C_COUNT; c++)
        if (L.classes[c].count) {
            char n[64];
            snprintf(n, sizeof n, "[%s]", CLASS_NAMES[c]);
            print_row(n, &L.classes[c]);
        }
    printf("requests %llu in %.1f s: %.0f/s; lag p99 %.2f ms max %.2f ms; cpu "
           "%.2f s\n",
           (unsigned long long)total, span, rps, h_percentile_ms(&L.lag, .99),
           L.lag.max_us / 1000.0, cpu);
    printf(
        "placed %llu novalidhost %llu claim_retries %llu claim_failed %llu "
        "deleted %llu "
        "migrated %llu skipped %llu migrate_conflict %llu neutron_conflicts "
        "%llu retry_sleeps %llu stale_connections %llu computes_new %llu "
        "unfinished %llu\n",
        (unsigned long long)L.fc.placed, (unsigned long long)L.fc.novalidhost,
        (unsigned long long)L.fc.claim_retries,
        (unsigned long long)L.fc.claim_failed, (unsigned long long)L.fc.deleted,
        (unsigned long long)L.fc.migrated, (unsigned long long)L.fc.skipped,
        (unsigned long long)L.fc.migrate_conflict,
        (unsigned long long)L.fc.conflicts,
        (unsigned long long)L.fc.retry_sleeps, (unsigned long long)L.fc.stale,
        (unsigned long long)L.fc.computes_new,
        (unsigned long long)L.fc.flows_unfinished);
}

/* ---- main --------------------------------------------------------------- */

static void usage(void)
{
    fputs("usage: cloudload --desc FILE [options] | --flood PATH [options]\n"
          "  --host H (127.0.0.1) --port P (8778) --conns M (64) --computes N "
          "(all)\n"
          "  --periodic S (60) --refresh S (300) --list-interval S (10)   (0 "
          "disables)\n"
          "    a periodic refreshes its tree on every K-th run, K = "
          "floor(refresh /\n"
          "    periodic) + 1 (nova's strict > staleness test: 300/60 -> every "
          "6th)\n"
          "  --quota-placement  boots GET /usages twice (nova "
          "count_usage_from_placement)\n"
          "  --boot-rate R --delete-rate R --migrate-rate R --neutron-rate R  "
          "(per s)\n"
          "  --baremetal F (0.05) --az-fraction F (0.3) --host-subset N (5)\n"
          "  --rack-start K@T  --new-computes K@T  --duration S (60) --warmup "
          "S (5)\n"
          "  --seed N\n"
          "  --out FILE (JSON)  --log-failures FILE  --flood PATH (closed-loop "
          "ceiling)\n"
          "desc records: N n | CN idx root k uuid... | AG root agg[,agg] | PU "
          "proj user |\n"
          "  IN consumer proj user [compute index of its host, -1 none] |\n"
          "  NB root host agent bridge... | FL name vcpu ram_mb disk_gb "
          "traits|- |\n"
          "  AZ agg | IR node rc | NT trait,trait... (a new compute's)\n",
          stderr);
    exit(2);
}

static void parse_args(int argc, char **argv)
{
    static const struct option lo[] = { { "desc", 1, 0, 'd' },
                                        { "host", 1, 0, 'H' },
                                        { "port", 1, 0, 'p' },
                                        { "conns", 1, 0, 'c' },
                                        { "computes", 1, 0, 'n' },
                                        { "periodic", 1, 0, 1 },
                                        { "refresh", 1, 0, 2 },
                                        { "boot-rate", 1, 0, 3 },
                                        { "baremetal", 1, 0, 4 },
                                        { "az-fraction", 1, 0, 5 },
                                        { "host-subset", 1, 0, 6 },
                                        { "delete-rate", 1, 0, 7 },
                                        { "migrate-rate", 1, 0, 8 },
                                        { "list-interval", 1, 0, 9 },
                                        { "neutron-rate", 1, 0, 10 },
                                        { "rack-start", 1, 0, 11 },
                                        { "duration", 1, 0, 12 },
                                        { "warmup", 1, 0, 13 },
                                        { "seed", 1, 0, 14 },
                                        { "flood", 1, 0, 15 },
                                        { "out", 1, 0, 16 },
                                        { "log-failures", 1, 0, 17 },
                                        { "quota-placement", 0, 0, 18 },
                                        { "new-computes", 1, 0, 19 },
                                        { "help", 0, 0, 'h' },
                                        { 0, 0, 0, 0 } };
    int ch;
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'd':
            O.desc = optarg;
            break;
        case 'H':
            O.host = optarg;
            break;
        case 'p':
            O.port = atoi(optarg);
            break;
        case 'c':
            O.conns = atoi(optarg);
            break;
        case 'n':
            O.computes = atoi(optarg);
            break;
        case 1:
            O.periodic = atof(optarg);
            break;
        case 2:
            O.refresh = atof(optarg);
            break;
        case 3:
            O.boot_rate = atof(optarg);
            break;
        case 4:
            O.baremetal = atof(optarg);
            break;
        case 5:
            O.az_fraction = atof(optarg);
            break;
        case 6:
            O.host_subset = atoi(optarg);
            break;
        case 7:
            O.delete_rate = atof(optarg);
            break;
        case 8:
            O.migrate_rate = atof(optarg);
            break;
        case 9:
            O.list_interval = atof(optarg);
            break;
        case 10:
            O.neutron_rate = atof(optarg);
            break;
        case 11:
            if (sscanf(optarg, "%d@%lf", &O.rack_k, &O.rack_t) != 2)
                usage();
            break;
        case 19:
            if (sscanf(optarg, "%d@%lf", &O.new_k, &O.new_t) != 2)
                usage();
            break;
        case 12:
            O.duration = atof(optarg);
            break;
        case 13:
            O.warmup = atof(optarg);
            break;
        case 14:
            O.seed = strtoull(optarg, NULL, 0);
            break;
        case 15:
            O.flood = optarg;
            break;
        case 16:
            O.out = optarg;
            break;
        case 17:
            O.log_failures = optarg;
            break;
        case 18:
            O.quota_placement = 1;
            break;
        default:
            usage();
        }
    }
    if ((!O.desc && !O.flood) || O.conns < 1 || optind != argc)
        usage();
    if (O.host_subset < 1)
        O.host_subset = 1;
    O.refresh_k = O.refresh > 0 && O.periodic > 0
                      ? (int)floor(O.refresh / O.periodic) + 1
                      : 0;
}

static void cleanup(void)
{
    for (int i = 0; i < O.conns; i++) {
        conn_t *c = &L.conns[i];
        if (c->cur)
            flow_free(c->cur);
        if (c->fd >= 0)
            close(c->fd);
        free(c->in);
        free(c->out);
    }
    while (L.qhead) {
        flow_t *f = L.qhead;
        L.qhead = f->qnext;
        flow_free(f);
    }
    free(L.conns);
    free(L.idle);
    free(L.heap);
    while (ARENA) {
        struct arena_block *b = ARENA;
        ARENA = b->next;
        free(b);
    }
    free(CL.text);
    free(CL.cn);
    free(CL.treeptrs);
    free(CL.pu);
    free(CL.in);
    free(CL.fl);
    free(CL.az);
    free(CL.ir);
    free(CL.ag);
    free(CL.slot);
    if (L.logf)
        fclose(L.logf);
    close(L.ep);
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    RNG_SCHED.s = O.seed * 0x100000001b3ULL + 1;
    RNG_FLOW.s = O.seed ^ 0x5bd1e995deadbeefULL;
    RNG_UUID.s = (uint64_t)time(NULL) * 1000003ULL ^ (uint64_t)getpid() << 32 ^
                 (uint64_t)(now_s() * 1e9);
    if (O.desc)
        load_desc(O.desc);
    if (O.log_failures && !(L.logf = fopen(O.log_failures, "a")))
        die("%s: %s", O.log_failures, strerror(errno));
    L.addr.sin_family = AF_INET;
    L.addr.sin_port = htons(O.port);
    if (inet_pton(AF_INET, O.host, &L.addr.sin_addr) != 1)
        die("bad --host %s (IPv4)", O.host);
    signal(SIGPIPE, SIG_IGN);
    L.ep = epoll_create1(EPOLL_CLOEXEC);
    L.conns = calloc(O.conns, sizeof *L.conns);
    L.idle = xmalloc(O.conns * sizeof *L.idle);
    for (int i = 0; i < O.conns; i++) {
        L.conns[i].idx = i;
        L.conns[i].fd = -1;
        conn_open(&L.conns[i]);
    }
    L.t0 = now_s();
    L.t_warm = L.t0 + O.warmup;
    L.t_end = L.t0 + O.duration;
    schedule_start();
    run_loop();
    double t_stop = now_s();
    report(t_stop);
    cleanup();
    return 0;
}
