/* Fuzz target: the scene loader. Whatever the bytes, loading returns a world or an error with a message, never
 * crashes; a loaded scene of modest size steps twice. Memory is capped through PhysFlow's allocation hook, so a
 * scene asking for gigabytes gets PF_ENOMEM instead of exhausting the fuzzer. */
#include "physflow/scene.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { CAP_BYTES = 256 << 20 };
static size_t in_use;

typedef struct header {
    size_t size;
    size_t pad[7]; /* keeps the block 64-byte aligned */
} header;

static void *capped_alloc(size_t size, size_t alignment, void *ctx)
{
    (void)ctx;
    (void)alignment; /* 64 at most: the header keeps that */
    if (size > CAP_BYTES || in_use + size > CAP_BYTES) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, 64, sizeof(header) + size)) return NULL;
    ((header *)p)->size = size;
    in_use += size;
    return (header *)p + 1;
}

static void capped_free(void *p, void *ctx)
{
    (void)ctx;
    if (!p) return;
    header *h = (header *)p - 1;
    in_use -= h->size;
    free(h);
}

static void silent(pf_scene_severity s, const char *message, void *ctx)
{
    (void)s, (void)message, (void)ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pf_set_allocator(capped_alloc, capped_free, NULL);
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.workers = 1;
    d.world.runtime.executor = PF_EXEC_SEQ;
    d.world.runtime.bind = 0;
    d.world.runtime.quiet = 1;
    d.report = silent;
    pf_scene *s = NULL;
    if (pf_scene_load_memory(&d, "fuzz.xml", (const char *)data, size, NULL, &s) == PF_OK) {
        pf_scene_summary sum;
        if (pf_scene_get_summary(s, &sum) == PF_OK && sum.points <= 2000) pf_world_step(pf_scene_world(s), 2);
        pf_scene_destroy(s);
    } else if (!pf_last_error()[0]) {
        abort(); /* every failure explains itself */
    }
    pf_set_allocator(NULL, NULL, NULL);
    return 0;
}
