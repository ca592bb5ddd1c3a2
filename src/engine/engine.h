/* engine — evaluation on the CUDA device (and on the compile-only NVRTC device): the interface
 * the frontend uses. The engine takes a folded, verified flat IR and runs it:
 *
 *   transfer.c  device address of every input (host data uploaded once, small inputs in one DMA)
 *   run.c       plan key ──► plan cache ──(miss)──► schedule.c: steps (fusion, batching), each
 *               step's kernels through the one find-or-build path (codegen key ──► kernel cache
 *               ──(miss)──► codegen source ──► NVRTC)
 *               ──► per step: buffers from the pool, launch / matmul.c (cuBLASLt) / 2-D copy
 *
 * Its state (plan cache, cuBLAS handle, traversal memory) is an opaque en_engine_t that the ctx
 * creates beside its runtime device and destroys once. The engine knows nothing of the
 * frontend's arrays: an eval's inputs are en_mem_t records (each ir_input_t.owner points to
 * one), and its results come back as en_mem_t records too. Errors go to the ctx's sticky
 * error through the pointers given at creation. */
#ifndef LOOM_ENGINE_H
#define LOOM_ENGINE_H

#include "../ir/ir.h"
#include "../runtime/rt.h"

typedef struct en_engine en_engine_t;
typedef struct en_devblock en_devblock_t; /* device memory shared by several en_mem_t */

/* Where one buffer's bytes are. The frontend's buffers embed one; the engine reads and updates
 * the device side (uploads kept for later evals) and frees it with en_mem_drop. */
typedef struct en_mem {
    void *host;          /* host bytes (NULL for device data) */
    uint64_t dev;        /* device address: the data itself, or a host buffer's upload */
    size_t bytes;        /* bytes of the data (borrowed memory: the extent its strides reach) */
    bool on_device;      /* the data lives on the device (results, imported device memory) */
    bool borrowed;       /* memory the caller owns: never freed by loom */
    bool queued;         /* transfer.c: already in this eval's upload list */
    en_devblock_t *block; /* the shared block dev lies in (packed uploads, batched results) */
    uint64_t host_hash;  /* borrowed host data: its contents when uploaded (debug checks) */
    uint64_t taint;      /* results: the eval that made them while a kernel's raise was not
                          * yet checked (run.c, "Errors after the eval"); 0 when none was */
} en_mem_t;

typedef struct en_options {
    rt_device_t *rt;     /* borrowed: outlives the engine */
    base_alloc_t *al;
    base_error_t *err;   /* the ctx's sticky error */
    base_log_t *log;
    loom_stats_t *stats; /* the ctx's counters: plan hits and misses, reversed kernels, evals */
    const char *dump_dir; /* NULL, or where each new schedule is written as text */
    bool compile_only;   /* the NVRTC device: plan and compile, launch nothing */
    bool allow_tf32;     /* float32 products may use TF32 */
} en_options_t;

/* ---- engine.c ---- */
/* A new engine over o->rt, or NULL when out of memory (the caller reports it). */
en_engine_t *en_engine_create(const en_options_t *o);
/* Frees the plan cache, the cuBLAS state and the engine (NULL-safe); before the device. */
void en_engine_destroy(en_engine_t *e);

/* ---- run.c ---- */
/* Evaluates g's outputs on the device. Every input's owner is its buffer's en_mem_t (uploads
 * are recorded there). results[q] (zeroed by the caller) receives output q as device memory
 * (on_device, dev, bytes, and block for a piece of a shared block), which the caller then owns
 * and frees with en_mem_drop; same_as[q] is the earlier output whose memory q shares (q itself
 * when none: two requested arrays that are one node). The compile-only device plans and
 * compiles, and hands back no results (dev stays 0). Returns the status (errors recorded). */
loom_status_t en_eval(en_engine_t *e, ir_graph_t *g, en_mem_t *results, uint32_t *same_as);
/* Data-dependent errors are not waited for by the eval that meets them: en_check reads the
 * status words of the kernels that can raise and have run since the last check (one wait for
 * the device, none when there are none), and records the first error found. The frontend calls
 * it wherever it waits for the device anyway: reads, loom_sync, pointers handed out. Returns
 * the status. */
loom_status_t en_check(en_engine_t *e);
/* Whether m's data came from a failed check's evals (directly or through their results):
 * records that check's error and returns its status, else LOOM_STATUS_OK. Call after
 * en_check; NULL-safe in e (a CPU ctx). */
loom_status_t en_mem_check(en_engine_t *e, const en_mem_t *m);

/* ---- transfer.c ---- */
/* Frees what the engine placed on the device for m (a result, an upload, or its share of a
 * block; never borrowed device memory) and forgets it: the next eval uploads host data again.
 * NULL-safe in e (a CPU ctx has no device memory). */
void en_mem_drop(en_engine_t *e, en_mem_t *m);

#endif
