/*
** `hydae sweep` across processes with MPI (`mpirun -n P hydae sweep ...`),
** in a build that found MPI (CMake's FindMPI; Open MPI on Debian). Rank 0
** is the master: its threads take runs from its counter directly, and its
** main thread, besides writing the table, answers the other ranks. A rank
** > 0 asks for a chunk of consecutive runs (dynamic balancing: runs differ
** in cost), a quarter of the runs left per rank's share (guided
** self-scheduling, Polychronopoulos & Kuck, IEEE Trans. Comput. C-36
** (1987) 1425-1439), at most MAX_CHUNK and at least 1, so that it does not
** wait for rank 0's answer at every run and the last runs still spread.
** It asks as it starts the last run of a chunk, and its rows travel with
** that request (or, once every run is given out, alone): one message per
** chunk, not per run. Its threads' MPI calls are
** serialised by a lock (MPI_THREAD_SERIALIZED). Run i's parameters are
** computed on every rank from (plan, i) alone, so the table is the one a
** single process writes. MPI starts only when the process was launched by
** mpirun (its environment says so); without MPI, one rank.
*/
#define _POSIX_C_SOURCE 200809L /* setenv */
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

/* A rank > 0: the rows finished since its last message to rank 0, packed
** (see pack_row), sent with its next request or, once the runs are all
** given out, when a thread looks for another. */
static unsigned char *rows_out;
static size_t rows_out_len, rows_out_cap;

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
    /* Open MPI's ob1 messaging unless the user chose otherwise: hydae's
    ** messages are a few hundred bytes per chunk of runs, and ob1 starts in
    ** 0.05 s where the default (UCX) takes 0.26 s on a 2-core machine
    ** (bench/sweep.sh). Read by Open MPI in MPI_Init; other MPIs ignore it. */
    setenv("OMPI_MCA_pml", "ob1", 0);
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
    free(rows_out);
    rows_out = NULL;
    rows_out_len = rows_out_cap = 0;
}

/* A row as bytes: (i, failed, steps, wall, measures..., status length)
** as doubles, then the status text without its terminator, padded to a
** multiple of 8 bytes. */
static size_t packed_row_size(const hydae_sweep *sw, size_t status_len)
{
    return sizeof(double) * (size_t)(N_ROW_HEADER + 1 + sw->plan.n_measures)
           + (status_len + 7) / 8 * 8;
}

static void out_of_memory(const hydae_sweep *sw, const char *what)
{
    fprintf(stderr, "hydae sweep: rank %d: out of memory %s\n", sw->rank, what);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* A finished row into rows_out (under mpi_lock). */
static void pack_row(hydae_sweep *sw, long i)
{
    const sweep_row *row = &sw->rows[i];
    size_t status_len = 0;
    while (status_len < SWEEP_STATUS_CAP - 1 && row->status[status_len])
        status_len++;
    size_t size = packed_row_size(sw, status_len);
    if (rows_out_len + size > rows_out_cap) {
        size_t cap = rows_out_cap ? 2 * rows_out_cap : 64 * size;
        while (cap < rows_out_len + size)
            cap *= 2;
        unsigned char *grown = realloc(rows_out, cap);
        if (!grown) {
            out_of_memory(sw, "keeping a row");
            return;
        }
        rows_out = grown;
        rows_out_cap = cap;
    }
    int n_measures = sw->plan.n_measures;
    double header[N_ROW_HEADER] = { (double)i, row->failed, (double)row->steps, row->wall };
    unsigned char *at = rows_out + rows_out_len;
    memset(at, 0, size);
    memcpy(at, header, sizeof header);
    memcpy(at + sizeof header, row->measures, sizeof(double) * (size_t)n_measures);
    double len = (double)status_len;
    memcpy(at + sizeof header + sizeof(double) * (size_t)n_measures, &len, sizeof len);
    memcpy(at + sizeof(double) * (size_t)(N_ROW_HEADER + 1 + n_measures), row->status, status_len);
    rows_out_len += size;
}

/* The kept rows to rank 0, with a request for runs (TAG_ASK) or alone
** (TAG_ROW), under mpi_lock. */
static void send_rows(int tag)
{
    MPI_Send(rows_out, (int)rows_out_len, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
    rows_out_len = 0;
}

/* A rank > 0 asks for its next chunk as it starts the last run of the
** present one (the rows done so far travel with the request), so that the
** answer is there when that run ends: rank 0's main thread looks for
** requests once a millisecond. */
static MPI_Request asked = MPI_REQUEST_NULL;
static long asked_chunk[2]; /* first run, count; first < 0: none left */

static void ask_for_chunk(void)
{
    send_rows(TAG_ASK);
    MPI_Irecv(asked_chunk, 2, MPI_LONG, 0, TAG_RUN, MPI_COMM_WORLD, &asked);
}

static long sweep_mpi_take(hydae_sweep *sw)
{
    (void)sw;
    long i = -1;
    pthread_mutex_lock(&mpi_lock);
    if (chunk_next >= chunk_end && !runs_exhausted) {
        if (asked == MPI_REQUEST_NULL)
            ask_for_chunk();
        MPI_Wait(&asked, MPI_STATUS_IGNORE);
        runs_exhausted = asked_chunk[0] < 0;
        chunk_next = runs_exhausted ? 0 : asked_chunk[0];
        chunk_end = runs_exhausted ? 0 : asked_chunk[0] + asked_chunk[1];
    }
    if (runs_exhausted && rows_out_len > 0)
        send_rows(TAG_ROW);
    if (chunk_next < chunk_end)
        i = chunk_next++;
    if (i >= 0 && chunk_next == chunk_end && asked == MPI_REQUEST_NULL)
        ask_for_chunk();
    pthread_mutex_unlock(&mpi_lock);
    return i;
}

/* Run i is done: its row waits for the rank's next message to rank 0 (one
** message per chunk: a message per row cost about 0.6 ms each). */
static void sweep_mpi_send_row(hydae_sweep *sw, long i)
{
    pthread_mutex_lock(&mpi_lock);
    pack_row(sw, i);
    pthread_mutex_unlock(&mpi_lock);
}

/* The rows of one message from a rank > 0 into sw->rows; a malformed
** message (not from hydae) ends the sweep. */
static void unpack_rows(hydae_sweep *sw, const unsigned char *bytes, size_t n_bytes)
{
    int n_measures = sw->plan.n_measures;
    size_t fixed = sizeof(double) * (size_t)(N_ROW_HEADER + 1 + n_measures);
    for (size_t at = 0; at < n_bytes;) {
        double header[N_ROW_HEADER], len;
        if (n_bytes - at < fixed)
            break;
        memcpy(header, bytes + at, sizeof header);
        memcpy(&len, bytes + at + fixed - sizeof len, sizeof len);
        long i = (long)header[0];
        size_t status_len = len >= 0 && len < SWEEP_STATUS_CAP ? (size_t)len : SWEEP_STATUS_CAP;
        size_t size = packed_row_size(sw, status_len);
        if (status_len >= SWEEP_STATUS_CAP || n_bytes - at < size || i < 0
            || i >= sw->plan.n_runs)
            break;
        sweep_row *row = &sw->rows[i];
        row->failed = header[1] != 0.0;
        row->steps = (long)header[2];
        row->wall = header[3];
        memcpy(row->measures, bytes + at + sizeof header, sizeof(double) * (size_t)n_measures);
        memcpy(row->status, bytes + at + fixed, status_len);
        row->status[status_len] = '\0';
        row->done = 1;
        sw->n_done++;
        sw->n_failed += row->failed;
        at += size;
        if (at == n_bytes)
            return;
    }
    fprintf(stderr, "hydae sweep: a malformed message of rows from another rank\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* A message from a rank > 0 (rows, with or without a request). */
static void receive_rows(hydae_sweep *sw, const MPI_Status *status)
{
    int n_bytes = 0;
    MPI_Get_count(status, MPI_BYTE, &n_bytes);
    unsigned char *bytes = malloc(n_bytes > 0 ? (size_t)n_bytes : 1);
    if (!bytes) {
        out_of_memory(sw, "receiving rows");
        return;
    }
    MPI_Recv(bytes, n_bytes, MPI_BYTE, status->MPI_SOURCE, status->MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (n_bytes > 0)
        unpack_rows(sw, bytes, (size_t)n_bytes);
    free(bytes);
}

static int sweep_mpi_serve(hydae_sweep *sw)
{
    int n_told = 0, pending = 0;
    MPI_Status status;
    while (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &pending, &status)
               == MPI_SUCCESS
           && pending) {
        receive_rows(sw, &status);
        if (status.MPI_TAG != TAG_ASK)
            continue;
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
