/* Fuzz target: the scene loader. Whatever the bytes, loading returns a world or an error with a message, never
 * crashes; a loaded scene of modest size steps twice. Memory is capped through PhysFlow's allocation hook, so a
 * scene asking for gigabytes gets PF_ENOMEM instead of exhausting the fuzzer. */
#include "physflow/scene.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#include "capped_alloc.h"

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
