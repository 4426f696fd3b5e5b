/*
** `hydae sweep` across processes with MPI (`mpirun -n P hydae sweep ...`),
** in a build that found MPI (CMake's FindMPI; Open MPI on Debian). Rank 0
** is the master: its threads take runs from its counter directly, and its
** main thread, besides writing the table, answers the other ranks: a
** request gets the next run not yet started (dynamic balancing: runs
** differ in cost), a row is stored as if run locally. The other ranks'
** threads ask for runs and send their rows one at a time, their MPI calls
** serialised by a lock (MPI_THREAD_SERIALIZED). A request is answered with
** a chunk of consecutive runs, a quarter of the runs left per rank's share
** (guided self-scheduling, Polychronopoulos & Kuck, IEEE Trans. Comput.
** C-36 (1987) 1425-1439), at most MAX_CHUNK and at least 1: a rank does not
** wait for rank 0's answer at every run, and the last runs still spread. Run i's parameters are
** computed on every rank from (plan, i) alone, so the table is the one a
** single process writes. MPI starts only when the process was launched by
** mpirun (its environment says so); without MPI, one rank.
*/
#include "sweep.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HYDAE_HAVE_MPI
#include <mpi.h>

enum { TAG_ASK = 1, TAG_RUN, TAG_ROW, N_ROW_HEADER = 4, MAX_CHUNK = 64 };

static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;
static int runs_exhausted; /* a rank > 0 was told there are no more */
static long chunk_next, chunk_end; /* a rank > 0: the runs of its chunk not taken yet */

static long sweep_mpi_take(hydae_sweep *sw);
static void sweep_mpi_send_row(hydae_sweep *sw, long i);
static int sweep_mpi_serve(hydae_sweep *sw);

static int launched_by_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

int sweep_mpi_start(hydae_sweep *sw)
{
    sw->rank = 0;
    sw->n_ranks = 1;
    if (!launched_by_mpirun())
        return 0;
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "hydae sweep: MPI_Init_thread failed\n");
        return -1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &sw->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &sw->n_ranks);
    if (provided < MPI_THREAD_SERIALIZED && sw->n_threads > 1 && sw->rank > 0) {
        fprintf(stderr, "hydae sweep: rank %d: this MPI does not allow calls from several "
                "threads (MPI_THREAD_SERIALIZED): one thread\n", sw->rank);
        sw->n_threads = 1;
    }
    if (sw->n_ranks > 1 && sw->rank > 0) {
        sw->hooks.take = sweep_mpi_take;
        sw->hooks.row_done = sweep_mpi_send_row;
    } else if (sw->n_ranks > 1) {
        sw->hooks.serve = sweep_mpi_serve;
    }
    return 0;
}

void sweep_mpi_end(hydae_sweep *sw, int abort_all)
{
    int started = 0;
    MPI_Initialized(&started);
    if (!started)
        return;
    if (abort_all && sw->n_ranks > 1)
        MPI_Abort(MPI_COMM_WORLD, 130); /* the other ranks may wait for rank 0 */
    MPI_Finalize();
}

static long sweep_mpi_take(hydae_sweep *sw)
{
    (void)sw;
    long i = -1;
    pthread_mutex_lock(&mpi_lock);
    if (chunk_next >= chunk_end && !runs_exhausted) {
        long chunk[2] = { -1, 0 }; /* first run, count */
        MPI_Send(&i, 0, MPI_LONG, 0, TAG_ASK, MPI_COMM_WORLD);
        MPI_Recv(chunk, 2, MPI_LONG, 0, TAG_RUN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        runs_exhausted = chunk[0] < 0;
        chunk_next = runs_exhausted ? 0 : chunk[0];
        chunk_end = runs_exhausted ? 0 : chunk[0] + chunk[1];
    }
    if (chunk_next < chunk_end)
        i = chunk_next++;
    pthread_mutex_unlock(&mpi_lock);
    return i;
}

/* A row as bytes: (i, failed, steps, wall, measures...) as doubles, then
** the status text. */
static size_t row_bytes(const hydae_sweep *sw)
{
    return sizeof(double) * (size_t)(N_ROW_HEADER + sw->plan.n_measures) + SWEEP_STATUS_CAP;
}

static void sweep_mpi_send_row(hydae_sweep *sw, long i)
{
    const sweep_row *row = &sw->rows[i];
    size_t size = row_bytes(sw);
    double *packed = malloc(size);
    if (!packed) {
        fprintf(stderr, "hydae sweep: rank %d: out of memory sending run %ld\n", sw->rank, i);
        MPI_Abort(MPI_COMM_WORLD, 2);
        return;
    }
    double header[N_ROW_HEADER] = { (double)i, row->failed, (double)row->steps, row->wall };
    memcpy(packed, header, sizeof header);
    memcpy(packed + N_ROW_HEADER, row->measures, sizeof(double) * (size_t)sw->plan.n_measures);
    memcpy(packed + N_ROW_HEADER + sw->plan.n_measures, row->status, SWEEP_STATUS_CAP);
    pthread_mutex_lock(&mpi_lock);
    MPI_Send(packed, (int)size, MPI_BYTE, 0, TAG_ROW, MPI_COMM_WORLD);
    pthread_mutex_unlock(&mpi_lock);
    free(packed);
}

static void receive_row(hydae_sweep *sw, int source)
{
    size_t size = row_bytes(sw);
    double *packed = malloc(size);
    if (!packed) {
        fprintf(stderr, "hydae sweep: out of memory receiving a row\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
        return;
    }
    MPI_Recv(packed, (int)size, MPI_BYTE, source, TAG_ROW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long i = (long)packed[0];
    if (i >= 0 && i < sw->plan.n_runs) {
        sweep_row *row = &sw->rows[i];
        row->failed = packed[1] != 0.0;
        row->steps = (long)packed[2];
        row->wall = packed[3];
        memcpy(row->measures, packed + N_ROW_HEADER,
               sizeof(double) * (size_t)sw->plan.n_measures);
        memcpy(row->status, packed + N_ROW_HEADER + sw->plan.n_measures, SWEEP_STATUS_CAP);
        row->status[SWEEP_STATUS_CAP - 1] = '\0';
        row->done = 1;
        sw->n_done++;
        sw->n_failed += row->failed;
    }
    free(packed);
}

static int sweep_mpi_serve(hydae_sweep *sw)
{
    int n_told = 0, pending = 0;
    MPI_Status status;
    while (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &pending, &status)
               == MPI_SUCCESS
           && pending) {
        if (status.MPI_TAG == TAG_ROW) {
            receive_row(sw, status.MPI_SOURCE);
            continue;
        }
        long ask;
        MPI_Recv(&ask, 0, MPI_LONG, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        long left = sw->plan.n_runs - atomic_load(&sw->next_run);
        long size = left / (4L * sw->n_ranks);
        size = size < 1 ? 1 : size > MAX_CHUNK ? MAX_CHUNK : size;
        long i = atomic_load(&sw->stopping) ? -1 : atomic_fetch_add(&sw->next_run, size);
        if (i >= sw->plan.n_runs)
            i = -1;
        long chunk[2] = { i, i < 0 ? 0 : (i + size <= sw->plan.n_runs ? size : sw->plan.n_runs - i) };
        n_told += i < 0;
        MPI_Send(chunk, 2, MPI_LONG, status.MPI_SOURCE, TAG_RUN, MPI_COMM_WORLD);
    }
    return n_told;
}

#else /* one rank */

int sweep_mpi_start(hydae_sweep *sw)
{
    sw->rank = 0;
    sw->n_ranks = 1;
    return 0;
}

void sweep_mpi_end(hydae_sweep *sw, int abort_all)
{
    (void)sw;
    (void)abort_all;
}

#endif
