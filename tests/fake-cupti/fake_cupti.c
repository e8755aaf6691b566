/*
 * A stand-in libcupti.so for tests/profgpu-kernels.sh: the CUPTI calls
 * libprofgpu-cupti.so makes, behaving as CUPTI does where it can break
 * a client:
 *  - buffers are asked of the client (bufferRequested) and handed back
 *    full (bufferCompleted) from the fake's own thread, concurrently with
 *    the launching threads; a forced flush and a context's destruction
 *    hand back the partial ones, and wait until they were delivered;
 *  - when the client's buffer is full and no other may be requested
 *    (FAKE_CUPTI_BUFFERS: the number of buffers the fake will ask for),
 *    records are dropped and counted per context, for
 *    cuptiActivityGetNumDroppedRecords (which resets the count);
 *  - kernel records are CUpti_ActivityKernel9's layout, with
 *    names owned by the fake; timestamps are CUPTI's clock, here
 *    CLOCK_REALTIME, not the monotonic clock profgpu uses;
 *  - one subscriber only (FAKE_CUPTI_BUSY=1: another profiler has it),
 *    cuptiGetVersion answers FAKE_CUPTI_VERSION (default 24, CUDA 12.6).
 * The fake driver (fake_cuda.c) calls fakecupti_* at each API call.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*cb_fn)(void *, int, uint32_t, const void *);
typedef void (*req_fn)(uint8_t **, size_t *, size_t *);
typedef void (*done_fn)(void *, uint32_t, uint8_t *, size_t, size_t);

struct kernel9 {		/* CUpti_ActivityKernel9 */
	uint32_t kind;
	uint8_t cache, smemcfg;
	uint16_t regs;
	uint32_t pgc_req, pgc_exec;
	uint64_t start, end, completed;
	uint32_t device, context, stream;
	int32_t grid[3], block[3], static_smem, dynamic_smem;
	uint32_t local_per_thread, local_total, correlation;
	int64_t grid_id;
	const char *name;
	void *reserved0;
	uint64_t queued, submitted;
	uint8_t launch_type, carveout_req, carveout, pad;
	uint32_t smem_executed;
	uint64_t graph_node;
	uint32_t shmem_limit, graph_id;
	void *apw;
	uint32_t channel, channel_type, cluster[4];
	uint64_t local_total_v2;
	uint32_t max_cluster, max_active;
} __attribute__((packed, aligned(8)));
_Static_assert(__builtin_offsetof(struct kernel9, name) == 104, "Kernel9 layout");

struct copy5 {			/* CUpti_ActivityMemcpy5 and Memset4 share this size */
	uint32_t kind;
	uint8_t copy_kind, src, dst, flags;	/* memset: value here (uint32_t) */
	uint64_t bytes, start, end;
	uint32_t device, context, stream, correlation, runtime_corr, pad;
	void *reserved0;
	uint64_t graph_node;
	uint32_t graph_id, channel, channel_type, pad2;
} __attribute__((packed, aligned(8)));

struct ctxbuf {
	uint32_t id;
	uint8_t *buf;
	size_t size, used;
	size_t dropped;
	int live;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static cb_fn callback;
static void *cb_user;
static unsigned char enabled[3][1024];
static int kinds[32];
static req_fn requested;
static done_fn completed;
static int subscribed, buffers_left = -1;
static struct ctxbuf ctxs[16];
static uint32_t next_corr = 1;
/* the completion queue, served by the fake's thread */
struct pending { uint32_t ctx; uint8_t *buf; size_t size, used; };
static struct pending queue[256];
static size_t qhead, qtail, inflight;
static pthread_t worker;
static int worker_started;

static uint64_t cupti_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *serve(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		while (qhead == qtail)
			pthread_cond_wait(&cv, &mu);
		struct pending p = queue[qhead++ % 256];
		pthread_mutex_unlock(&mu);
		/* a real CUPTI thread takes its time */
		nanosleep(&(struct timespec){ 0, 200000 }, NULL);
		completed((void *)(uintptr_t)p.ctx, 0, p.buf, p.size, p.used);
		pthread_mutex_lock(&mu);
		inflight--;
		pthread_cond_broadcast(&cv);
	}
	return NULL;
}

/* Queue c's buffer for delivery (mu held). */
static void hand_back(struct ctxbuf *c)
{
	if (!c->buf)
		return;
	if (!worker_started) {
		pthread_create(&worker, NULL, serve, NULL);
		pthread_detach(worker);
		worker_started = 1;
	}
	queue[qtail++ % 256] = (struct pending){ c->id, c->buf, c->size, c->used };
	inflight++;
	c->buf = NULL;
	pthread_cond_broadcast(&cv);
}

static struct ctxbuf *ctx_of(uint32_t id)
{
	for (int i = 0; i < 16; i++)
		if (ctxs[i].live && ctxs[i].id == id)
			return &ctxs[i];
	return NULL;
}

/* Room for a record of n bytes in context id's buffer, or NULL (dropped). mu held. */
static void *room(uint32_t id, size_t n)
{
	struct ctxbuf *c = ctx_of(id);
	size_t max;
	const char *per = getenv("FAKE_CUPTI_RECORDS_PER_BUFFER");

	if (!c)
		return NULL;
	if (c->buf) {
		max = c->size;
		if (per && (size_t)atoi(per) * sizeof(struct kernel9) < max)
			max = (size_t)atoi(per) * sizeof(struct kernel9);
		if (c->used + n > max)
			hand_back(c);
	}
	if (!c->buf) {
		uint8_t *b = NULL;
		size_t size = 0, maxrec = 0;

		if (buffers_left == 0) {
			c->dropped++;
			return NULL;
		}
		if (buffers_left > 0)
			buffers_left--;
		requested(&b, &size, &maxrec);
		if (!b || size < n) {
			c->dropped++;
			return NULL;
		}
		c->buf = b;
		c->size = size;
		c->used = 0;
	}
	c->used += n;
	return c->buf + c->used - n;
}

/* ---- the CUPTI API ---- */

int cuptiGetVersion(uint32_t *v)
{
	const char *e = getenv("FAKE_CUPTI_VERSION");

	*v = e ? (uint32_t)atoi(e) : 24;
	return 0;
}

int cuptiGetResultString(int r, const char **s)
{
	*s = r == 39 ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" : "CUPTI_ERROR_UNKNOWN";
	return 0;
}

int cuptiSubscribe(void **sub, cb_fn fn, void *user)
{
	const char *busy = getenv("FAKE_CUPTI_BUSY");

	if (subscribed || (busy && *busy == '1'))
		return 39;
	subscribed = 1;
	callback = fn;
	cb_user = user;
	*sub = &subscribed;
	return 0;
}

int cuptiEnableCallback(uint32_t on, void *sub, int domain, uint32_t cbid)
{
	(void)sub;
	if (domain < 1 || domain > 2 || cbid >= 1024)
		return 1;
	enabled[domain][cbid] = (unsigned char)on;
	return 0;
}

int cuptiActivityEnable(int kind)
{
	if (kind < 0 || kind >= 32)
		return 1;
	kinds[kind] = 1;
	return 0;
}

int cuptiActivityRegisterCallbacks(req_fn r, done_fn d)
{
	const char *e = getenv("FAKE_CUPTI_BUFFERS");

	requested = r;
	completed = d;
	buffers_left = e ? atoi(e) : -1;
	return 0;
}

int cuptiActivityFlushAll(uint32_t flag)
{
	pthread_mutex_lock(&mu);
	for (int i = 0; i < 16; i++)
		if (ctxs[i].live && (flag & 1))
			hand_back(&ctxs[i]);
	while (inflight)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return 0;
}

int cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, void **rec)
{
	size_t off = 0;

	if (*rec) {
		uint32_t kind = *(uint32_t *)*rec;

		off = (size_t)((uint8_t *)*rec - buf) + (kind == 10 ? sizeof(struct kernel9) : sizeof(struct copy5));
	}
	if (off >= valid)
		return 12;	/* CUPTI_ERROR_MAX_LIMIT_REACHED */
	*rec = buf + off;
	return 0;
}

int cuptiActivityGetNumDroppedRecords(void *ctx, uint32_t stream, size_t *n)
{
	uint32_t id = (uint32_t)(uintptr_t)ctx;

	(void)stream;
	pthread_mutex_lock(&mu);
	*n = 0;
	for (int i = 0; i < 16; i++)
		if (ctxs[i].id == id) {
			*n += ctxs[i].dropped;
			ctxs[i].dropped = 0;
		}
	pthread_mutex_unlock(&mu);
	return 0;
}

int cuptiGetTimestamp(uint64_t *t)
{
	*t = cupti_now();
	return 0;
}

/* ---- what the fake driver calls ---- */

void fakecupti_ctx_create(uint32_t id);
void fakecupti_ctx_destroy(uint32_t id);
uint32_t fakecupti_api(int domain, uint32_t cbid, const char *fn, int site, uint32_t corr);
void fakecupti_kernel(uint32_t ctx, uint32_t dev, uint32_t stream, uint32_t corr, const char *name,
		      const int grid[3], const int block[3], uint64_t ns);
void fakecupti_copy(uint32_t ctx, uint32_t dev, uint32_t stream, int memset_value, int kind,
		    uint64_t bytes, uint64_t ns);

void fakecupti_ctx_create(uint32_t id)
{
	pthread_mutex_lock(&mu);
	for (int i = 0; i < 16; i++)
		if (!ctxs[i].live) {
			memset(&ctxs[i], 0, sizeof(ctxs[i]));
			ctxs[i].id = id;
			ctxs[i].live = 1;
			break;
		}
	pthread_mutex_unlock(&mu);
}

/* CUPTI hands back a destroyed context's records before it is gone. */
void fakecupti_ctx_destroy(uint32_t id)
{
	pthread_mutex_lock(&mu);
	struct ctxbuf *c = ctx_of(id);

	if (c) {
		hand_back(c);
		while (inflight)
			pthread_cond_wait(&cv, &mu);
		c->live = 0;
	}
	pthread_mutex_unlock(&mu);
}

/* An API call entered or left: the subscriber's callback; returns the correlation id. */
uint32_t fakecupti_api(int domain, uint32_t cbid, const char *fn, int site, uint32_t corr)
{
	struct {
		int site;
		const char *fn;
		const void *params;
		void *ret;
		const char *sym;
		void *ctx;
		uint32_t ctx_uid;
		uint64_t *corr_data;
		uint32_t corr;
	} cd = { site, fn, NULL, NULL, NULL, NULL, 0, NULL, 0 };

	if (!corr) {
		pthread_mutex_lock(&mu);
		corr = next_corr++;
		pthread_mutex_unlock(&mu);
	}
	cd.corr = corr;
	if (callback && cbid < 1024 && enabled[domain][cbid])
		callback(cb_user, domain, cbid, &cd);
	return corr;
}

static uint64_t stream_busy[4][8];

/* The GPU's clock: a kernel starts when its stream is free. mu held. */
static uint64_t gpu_start(uint32_t dev, uint32_t stream)
{
	uint64_t now = cupti_now(), *b = &stream_busy[dev & 3][stream & 7];

	return *b > now ? *b : now;
}

void fakecupti_kernel(uint32_t ctx, uint32_t dev, uint32_t stream, uint32_t corr, const char *name,
		      const int grid[3], const int block[3], uint64_t ns)
{
	struct kernel9 *k;

	if (!kinds[10])
		return;
	pthread_mutex_lock(&mu);
	if ((k = room(ctx, sizeof(*k)))) {
		memset(k, 0, sizeof(*k));
		k->kind = 10;
		k->regs = 32;
		k->start = gpu_start(dev, stream);
		k->end = k->start + ns;
		k->completed = k->end;
		stream_busy[dev & 3][stream & 7] = k->end;
		k->device = dev;
		k->context = ctx;
		k->stream = stream;
		memcpy(k->grid, grid, sizeof(k->grid));
		memcpy(k->block, block, sizeof(k->block));
		k->static_smem = 1024;
		k->dynamic_smem = 2048;
		k->correlation = corr;
		k->name = name;		/* the caller's string lives as long as the program */
	}
	pthread_mutex_unlock(&mu);
}

void fakecupti_copy(uint32_t ctx, uint32_t dev, uint32_t stream, int memset_value, int kind,
		    uint64_t bytes, uint64_t ns)
{
	struct copy5 *c;
	int memset_ = memset_value >= 0;

	if (!kinds[memset_ ? 2 : 1])
		return;
	pthread_mutex_lock(&mu);
	if ((c = room(ctx, sizeof(*c)))) {
		memset(c, 0, sizeof(*c));
		c->kind = memset_ ? 2 : 1;
		if (memset_)
			memcpy(&c->copy_kind, &(uint32_t){ (uint32_t)memset_value }, 4);
		else
			c->copy_kind = (uint8_t)kind;
		c->bytes = bytes;
		c->start = gpu_start(dev, stream);
		c->end = c->start + ns;
		stream_busy[dev & 3][stream & 7] = c->end;
		c->device = dev;
		c->context = ctx;
		c->stream = stream;
		c->correlation = 0;
	}
	pthread_mutex_unlock(&mu);
}
