/*
** FMI import: an FMU opened (archive.c, description.c, binary.c) and run
** as a hydae model through the public C API (model.c), with one
** version-specific table of instance operations each for FMI 2.0
** (me2.c) and FMI 3.0 (me3.c).
**
**     char err[1024];
**     hy_fmu *fmu;
**     hydae_model *m = hy_fmu_open_model("BouncingBall.fmu", &fmu, err, sizeof err);
**     ... hydae_sim_create(m, ...), run; after a failed run hy_fmu_errmsg(fmu)
**     hydae_model_free(m);   also closes the FMU and removes its directory
*/
#ifndef HY_FMI_FMU_H
#define HY_FMI_FMU_H

#include "fmi/description.h"
#include "fmi/fmi_api.h"
#include "hydae.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

typedef struct hy_fmu hy_fmu;

/* Which of the FMU's interfaces to import: Model Exchange when it has one
** (else Co-Simulation), or the one named. */
typedef enum hy_fmu_interface {
    HY_FMU_AUTO,
    HY_FMU_MODEL_EXCHANGE,
    HY_FMU_CO_SIMULATION
} hy_fmu_interface;

/* What one round of event iteration reports (fmi2NewDiscreteStates'
** fmi2EventInfo, fmi3UpdateDiscreteStates' out-arguments). */
typedef struct hy_fmi_event {
    int need_update, terminate, values_changed, next_time_defined;
    double next_time;
    int nominals_changed; /* nominalsOfContinuousStatesChanged */
} hy_fmi_event;

/* The calls of the Model Exchange calling sequence, one table per FMI
** version. Each returns 0, > 0 for fmiDiscard (the step may be retried)
** or < 0 with the message in the FMU's errmsg. */
typedef struct hy_fmi_instance_ops {
    int (*resolve)(hy_fmu *f, char *err, size_t err_size);
    int (*instantiate)(hy_fmu *f);
    void (*free_instance)(hy_fmu *f);
    int (*enter_initialization)(hy_fmu *f, double t0);
    int (*exit_initialization)(hy_fmu *f);
    int (*set_time)(hy_fmu *f, double t);
    int (*set_states)(hy_fmu *f, const double *x);
    int (*get_derivatives)(hy_fmu *f, double *dx);
    int (*get_indicators)(hy_fmu *f, double *z);
    int (*get_states)(hy_fmu *f, double *x);
    int (*enter_event_mode)(hy_fmu *f);
    int (*update_discrete)(hy_fmu *f, hy_fmi_event *event);
    int (*enter_continuous)(hy_fmu *f);
    int (*get_value)(hy_fmu *f, const hy_fmi_var *v, double *value);
    /* The sensitivity of the unknowns (value references) to the knowns
    ** times seed (Float64 / Real variables only; 2.0.4 section 3.2.2
    ** fmi2GetDirectionalDerivative, 3.0 section 3.2.3). */
    int (*directional)(hy_fmu *f, const uint32_t *unknown, size_t n_unknown,
                       const uint32_t *known, size_t n_known, const double *seed,
                       double *sensitivity);
    /* Any numeric type from a double (checked by hy_fmu_check_value). */
    int (*set_value)(hy_fmu *f, const hy_fmi_var *v, double value);
    void (*terminate)(hy_fmu *f);
    /* CompletedIntegratorStep: enterEventMode, terminateSimulation. */
    int (*completed_step)(hy_fmu *f, int *enter_event, int *terminate);
    /* Co-Simulation: DoStep from t over h; *terminate: the FMU ended the
    ** run (terminateSimulation). */
    int (*do_step)(hy_fmu *f, double t, double h, int *terminate);
    /* GetNominalsOfContinuousStates into nominal[0..n_states); -1 with
    ** the message when the FMU does not export it. */
    int (*get_nominals)(hy_fmu *f, double *nominal);
} hy_fmi_instance_ops;

extern const hy_fmi_instance_ops hy_fmi2_ops;
extern const hy_fmi_instance_ops hy_fmi3_ops;

/* What is fixed once the model is built is shared by the copies for other
** sims (per_sim.c's copy_shared lists it); the rest is one run's. */
struct hy_fmu {
    char *path;                 /* as given, for messages */
    char dir[4096];             /* where the archive is unpacked ("" once removed) */
    hy_fmi_description desc;
    const char *identifier;     /* desc.me_identifier, or cs_identifier */
    int cosim;                  /* imported through Co-Simulation (cosim.c) */
    void *library;
    hy_fmi2_functions f2;
    hy_fmi3_functions f3;
    const hy_fmi_instance_ops *ops;
    void *instance;
    int fatal;                  /* fmiFatal: no call at all any more */
    int terminated;             /* the FMU asked to end the run (terminateSimulation) */
    hy_fmi2_callbacks callbacks2;
    char resources[4200];       /* 2.0: file URI of resources/; 3.0: its path, with '/' */
    int have_resources;
    /* What the FMU holds now, so that unchanged values are not set again. */
    int time_valid, states_valid;
    double time_set;
    double *states_set;
    double *scratch;            /* n_states */
    double *seed;               /* n_vars, for the Jacobian's columns */
    double *sensitivity;        /* n_vars, a column of directional derivatives */
    uint32_t *state_vr, *derivative_vr; /* the states' and derivatives' references */
    hydae_chart *chart;         /* its time events are scheduled on it */
    int step_terminate;         /* CompletedIntegratorStep asked to end the run */
    /* The last event instant handled. */
    int have_event_time;
    double event_time;
    /* Co-Simulation: the communication step, the first communication
    ** point, the last one reached and how many steps were taken. */
    double cs_step, cs_t0, cs_time;
    long cs_k;
    /* Result columns and parameters: indices into desc.vars. */
    int n_outputs, n_params;
    int *output_var, *param_var;
    /* As a component of a model file (component.c): the names of its
    ** variables there (NAME.x; NULL: the FMI names), its numeric inputs
    ** (unknowns the model defines, after the states and outputs among its
    ** mode's variables) and the values they were last given. */
    int component;
    char **names;
    int n_inputs, inputs_valid;
    int *input_var;
    double *inputs_set;
    /* Its Jacobian from directional derivatives (component.c; 0 unknowns:
    ** by finite differences): the unknowns (derivatives, Float64 outputs)
    ** and knowns (states, Float64 inputs), with their rows and columns
    ** among the mode's equations and variables. */
    int n_jac_unknowns, n_jac_knowns;
    uint32_t *jac_unknown_vr, *jac_known_vr;
    int *jac_unknown_row, *jac_known_col;
    char errmsg[1024];          /* the last failure */
    char logmsg[512];           /* the FMU's last logged message */
    /* One state per sim (per_sim.c): the model's FMU for a copy (NULL for
    ** itself), the sim it serves, the copies for the other sims. */
    hy_fmu *origin;
    _Atomic(const void *) owner;
    struct hy_fmu_copy *_Atomic copies;
    pthread_mutex_t copies_lock;
    int have_copies_lock;
};

/* Unpack, read the description and load the binary (the interface iface
** picks): the FMU before its model is built. NULL with a message in err. */
hy_fmu *hy_fmu_open(const char *path, hy_fmu_interface iface, char *err, size_t err_size);
void hy_fmu_free(hy_fmu *f);
/* The instance terminated and freed (unless a fatal error forbids any
** call), none left. */
void hy_fmu_end_instance(hy_fmu *f);

/* Unpack, read the description and load the binary (Model Exchange),
** then build the model. The model owns the FMU: hydae_model_free frees
** the instance, unloads the library and removes the directory. *fmu (may
** be NULL) borrows it for hy_fmu_errmsg. NULL with a message in err on any
** failure (nothing is left on disk). */
hydae_model *hy_fmu_open_model(const char *path, hy_fmu **fmu, char *err, size_t err_size);
/* The same through the interface iface: an FMU for Co-Simulation is a
** sampled component (cosim.c, docs/fmi.md), stepped every communication
** step (<DefaultExperiment stepSize>, or hy_fmu_set_communication_step). */
hydae_model *hy_fmu_open_model_as(const char *path, hy_fmu_interface iface, hy_fmu **fmu,
                                  char *err, size_t err_size);
/* The communication step of a Co-Simulation FMU (h > 0), for its next
** runs. 0, or -1 for a step that is not positive and finite. */
int hy_fmu_set_communication_step(hy_fmu *f, double h);
/* Is it imported through Co-Simulation? */
int hy_fmu_is_cosim(const hy_fmu *f);

/* model.c, for cosim.c: the columns (numeric parameters and inputs,
** numeric outputs that are not states unless cosim), the model's
** parameters from them, and a fresh instance initialised at t0 with the
** run's parameters (and, for Model Exchange, the states' start values). */
int hy_fmu_choose_columns(hy_fmu *f);
int hy_fmu_add_params(hy_fmu *f, hydae_model *m);
int hy_fmu_initialise(hy_fmu *f, hydae_action *a, double t0);
/* model.c, for component.c: give the FMU t and the states y unless it
** has them; initialise it and iterate the events of t0 (a's time); the
** mode's self-transitions on event indicators, the scheduled time and the
** step event, each running the event iteration. */
int hy_fmu_sync(hy_fmu *f, double t, const double *y);
int hy_fmu_start(hy_fmu *f, hydae_action *a);
int hy_fmu_add_event_transitions(hy_fmu *f, hydae_mode *mode);
/* CompletedIntegratorStep (the mode's after-step function, user = f). */
int hy_fmu_after_step(double t, const double *y, const double *yp, const double *p, void *user);
/* The name variable var (an index into desc.vars) has in the model. */
const char *hy_fmu_var_name(const hy_fmu *f, int var);
/* component.c: a component's inputs as the action sees them, given to the
** FMU (0 for an FMU without inputs). */
int hy_fmu_sync_inputs_by_name(hy_fmu *f, const hydae_action *a);

/* An FMU for Model Exchange as a component of model m (docs/fmi.md, "An
** FMU as a component"): a chart NAME whose mode "on" has the states,
** numeric outputs and numeric inputs as variables NAME.x (the inputs
** without equations: the model gives them), its parameters the model's
** parameters NAME.p. With host NULL it is always active; otherwise it
** has a mode "off" too and follows host: on while host is active
** (instantiated and initialised from the values NAME.x have when it is
** entered), off otherwise (terminated). host should declare the names
** the model uses (shared unknowns); add the component after host's chart
** has its initial mode (the FMU's chart starts "on" when host is it). The
** FMU at path is opened here and owned by the model; NULL with a message
** in err. */
hy_fmu *hy_fmu_add_component(hydae_model *m, hydae_mode *host, const char *name,
                             const char *path, char *err, size_t err_size);

/* The model language's FMU components (`Fmu NAME(file = ...)`) read and
** built by component.c: pass to hy_lang_compile_file_fmi. */
extern const struct hy_lang_fmu_ops hy_fmu_lang_ops;

/* cosim.c: chart, mode, held outputs and the communication step. */
int hy_fmu_build_cosim(hy_fmu *f, hydae_model *m);
/* cosim.c: mode `on` of a component's chart (component.c) stepping the FMU
** every step (0: its <DefaultExperiment stepSize>) from the entry into
** on; its outputs NAME.y the model's discrete variables (declared by the
** model file), its inputs NAME.u read at each communication point. */
int hy_fmu_build_cosim_on(hy_fmu *f, hydae_mode *on, double step);
/* The last FMI failure of a run, naming the FMU, the call, the time and
** the FMU's own message ("" if none). */
const char *hy_fmu_errmsg(const hy_fmu *f);
const hy_fmi_description *hy_fmu_description(const hy_fmu *f);
/* Did the last run end because the FMU asked to terminate? Its time is
** where the run stopped; the failed action carries it (docs/fmi.md). */
int hy_fmu_terminated(const hy_fmu *f);

/* per_sim.c: the FMU state of the sim whose value store is sim (the p of
** a callback) or of action a's sim: f itself for the first sim that asks,
** a copy of it for every other (NULL, with f's message set, when out of
** memory or when the FMU can be instantiated only once per process).
** init/free: the copies' lock and the copies, with the model's FMU. */
hy_fmu *hy_fmu_for_sim(hy_fmu *f, const void *sim);
hy_fmu *hy_fmu_for_action(hy_fmu *f, const hydae_action *a);
int hy_fmu_per_sim_init(hy_fmu *f);
void hy_fmu_per_sim_free(hy_fmu *f);
/* The message of the state of f this thread used last (a mode's error
** text, which is given the model's FMU only). */
const char *hy_fmu_errmsg_used_last(const hy_fmu *f);

/* For the version tables: report a call's status. OK and Warning give 0,
** Discard 1, Error and Fatal -1 with the message set. */
int hy_fmu_check(hy_fmu *f, int status, const char *call);
/* Can value be given to v (an integer type's range, 0 or 1 for a
** Boolean)? 0, or -1 with the message set. */
int hy_fmu_check_value(hy_fmu *f, const hy_fmi_var *v, double value);
/* The FMU's logger: keeps its last message (errors end up in errmsg). */
void hy_fmu_log(hy_fmu *f, int status, const char *category, const char *message);

#endif
