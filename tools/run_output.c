/* physflow run's outputs: the per-step CSV table, VTK XML PolyData frames with a ParaView .pvd collection and the
 * run viewer's HTML page;
 * nothing a user wrote is overwritten without --force (support/cli_args.h), and files are written whole. */
#include "bench_csv.h"
#include "bench_util.h"
#include "run.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

int run_trace_write(pf_runtime *rt, const char *path)
{
    cli_out out;
    if (cli_out_open(&out, "run", path)) return 1;
    fclose(out.f); /* the runtime writes the file by name */
    out.f = NULL;
    if (pf_runtime_trace_write(rt, out.tmp)) {
        fprintf(stderr, "physflow run: %s\n", pf_last_error());
        cli_out_discard(&out);
        return 1;
    }
    return cli_out_commit(&out, "run") ? 1 : 0;
}

int run_csv_open(cli_out *out, const char *path, int argc, char **argv)
{
    if (cli_out_open(out, "run", path)) return -1;
    FILE *f = out->f;
    char machine[512], date[64];
    bench_machine_summary(machine, sizeof machine);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "# machine: %s\n# date: %s\n# command: physflow", machine, date);
    for (int i = 0; i < argc; i++) fprintf(f, " %s", argv[i]);
    fprintf(f, "\nstep,ms_step,ms_collision,ms_update,ms_integration,contacts,contact_pairs,pairs_started,"
               "pairs_stopped,candidates,groups,tasks,updated,tasks_added,tasks_removed,tasks_moved,imbalance,busy_ms,"
               "wait_ms,idle_ms,waits,waits_blocked,repartitions,objects_moved,ms_repartition,cg_iterations,"
               "cg_iterations_max,cg_stalled,cg_unconverged,min_distance,fast_pairs\n");
    return 0;
}

void run_csv_row(FILE *f, const run_step *r)
{
    fprintf(f, "%llu,%.4f,%.4f,%.4f,%.4f,%u,%u,%u,%u,%llu,%u,%u,%d,%u,%u,%u", (unsigned long long)r->step,
            r->ms_step, r->ms_collision, r->ms_update, r->ms_integration, r->contacts, r->pairs, r->started,
            r->stopped, (unsigned long long)r->candidates, r->groups, r->tasks, r->updated, r->tasks_added,
            r->tasks_removed, r->tasks_moved);
    fprintf(f, ",%.4f,%.4f,%.4f,%.4f,%llu,%llu,%u,%u,%.4f", r->imbalance, r->busy_ms, r->wait_ms, r->idle_ms,
            (unsigned long long)r->waits, (unsigned long long)r->waits_blocked, r->repartitions, r->objects_moved,
            r->ms_repartition);
    fprintf(f, ",%u,%u,%llu,%llu", r->cg_iterations, r->cg_iterations_max, (unsigned long long)r->cg_stalled,
            (unsigned long long)r->cg_unconverged);
    if (isfinite(r->min_distance))
        fprintf(f, ",%.6g,%u\n", r->min_distance, r->fast_pairs);
    else
        fprintf(f, ",inf,%u\n", r->fast_pairs); /* no contact */
}

static void write_points(FILE *f, const double *x, uint32_t n)
{
    fprintf(f, "<Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
    for (uint32_t i = 0; i < n; i++) fprintf(f, "%.9g %.9g %.9g\n", x[3 * i], x[3 * i + 1], x[3 * i + 2]);
    fprintf(f, "</DataArray></Points>\n");
}

/* One cell array (Verts or Polys): connectivity and offsets; `idx` NULL means 0..n-1 one per cell. */
static void write_cells(FILE *f, const char *kind, const uint32_t *idx, uint32_t cells, uint32_t per)
{
    fprintf(f, "<%s><DataArray type=\"UInt32\" Name=\"connectivity\" format=\"ascii\">\n", kind);
    for (uint32_t c = 0; c < cells * per; c++) fprintf(f, "%u%c", idx ? idx[c] : c, (c + 1) % per ? ' ' : '\n');
    fprintf(f, "</DataArray><DataArray type=\"UInt32\" Name=\"offsets\" format=\"ascii\">\n");
    for (uint32_t c = 0; c < cells; c++) fprintf(f, "%u\n", (c + 1) * per);
    fprintf(f, "</DataArray></%s>\n", kind);
}

static void write_object_field(FILE *f, uint32_t n, pf_object_id o)
{
    fprintf(f, "<PointData Scalars=\"object\"><DataArray type=\"UInt32\" Name=\"object\" format=\"ascii\">\n");
    for (uint32_t i = 0; i < n; i++) fprintf(f, "%u\n", o.index);
    fprintf(f, "</DataArray></PointData>\n");
}

int run_vtk_frame(pf_world *w, const char *dir, uint32_t frame)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/frame_%06u.vtp", dir, frame);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "physflow run: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
               "<PolyData>\n");
    for (uint32_t k = 0; k < pf_world_surfaces(w); k++) {
        pf_surface_id s = {k}; /* surfaces are numbered in creation order */
        uint32_t nv = 0, nt = 0;
        pf_object_id o = {0};
        if (pf_world_get_surface_info(w, s, &o, NULL, NULL) != PF_OK) continue; /* removed with its object */
        const double *x = pf_world_surface_positions(w, s, &nv);
        const uint32_t *t = pf_world_surface_triangles(w, s, &nt);
        fprintf(f, "<Piece NumberOfPoints=\"%u\" NumberOfVerts=\"%u\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
                   "NumberOfPolys=\"%u\">\n", nv, nt ? 0 : nv, nt);
        write_object_field(f, nv, o);
        write_points(f, x, nv);
        if (nt)
            write_cells(f, "Polys", t, nt, 3);
        else
            write_cells(f, "Verts", NULL, nv, 1);
        fprintf(f, "</Piece>\n");
    }
    for (uint32_t k = 0; k < pf_world_objects(w); k++) {
        pf_object_id o = {k}; /* objects are numbered in creation order */
        if (!pf_world_object_exists(w, o)) continue;
        uint32_t n = 0;
        const double *x = pf_world_positions(w, o, &n);
        if (pf_world_get_rigid_state(w, o, NULL, NULL, NULL, NULL) == PF_OK)
            n = 1; /* point 1 is not a position */
        fprintf(f, "<Piece NumberOfPoints=\"%u\" NumberOfVerts=\"%u\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
                   "NumberOfPolys=\"0\">\n", n, n);
        write_object_field(f, n, o);
        write_points(f, x, n);
        write_cells(f, "Verts", NULL, n, 1);
        fprintf(f, "</Piece>\n");
    }
    fprintf(f, "</PolyData>\n</VTKFile>\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "physflow run: write error on '%s'\n", path);
        return -1;
    }
    return 0;
}

int run_vtk_collection(const char *dir, uint32_t frames, double dt_frame)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/scene.pvd", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "physflow run: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\">\n<Collection>\n");
    for (uint32_t k = 0; k < frames; k++)
        fprintf(f, "<DataSet timestep=\"%.9g\" file=\"frame_%06u.vtp\"/>\n", k * dt_frame, k);
    fprintf(f, "</Collection>\n</VTKFile>\n");
    return fclose(f) == 0 ? 0 : -1;
}

int run_html_begin(pf_world *w, const run_opts *o, pf_html_writer **out)
{
    pf_html_def def = pf_html_default_def();
    def.every = (uint32_t)o->html_every;
    def.force = o->force;
    char title[512];
    snprintf(title, sizeof title, "physflow run %s", o->scene);
    def.title = title;
    if (pf_html_begin(o->html, w, &def, out)) {
        fprintf(stderr, "physflow run: --html: %s\n", pf_last_error());
        return 1;
    }
    return 0;
}

int run_html_step(pf_html_writer **h, pf_world *w)
{
    if (!pf_html_add_frame(*h, w)) return 0;
    fprintf(stderr, "physflow run: --html: %s\n", pf_last_error());
    pf_html_discard(*h);
    *h = NULL;
    return 1;
}

int run_html_end(pf_html_writer *h, int status, double *ms)
{
    if (!h) return status;
    if (status) {
        pf_html_discard(h);
        return status;
    }
    double t0 = bench_now_s();
    if (pf_html_end(h)) {
        fprintf(stderr, "physflow run: --html: %s\n", pf_last_error());
        return 1;
    }
    *ms = (bench_now_s() - t0) * 1e3;
    return 0;
}
