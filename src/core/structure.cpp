// A group of springs tuned as one structure (sb_structure.h): the group's stiffness matrix at its
// current shape, its lowest mode from Eigen's dense self-adjoint eigensolver (Eigen 3.4, MPL-2.0,
// Debian's libeigen3-dev, header-only, so the browser build compiles it too), and the one factor
// on the group's stiffnesses that puts that mode at the asked frequency.
//
// Small motions u about the shape satisfy M u'' + K u = 0: M holds each moving particle's mass
// twice (x and y), and a spring of stiffness k, length l, unit direction n and tension
// T = k (l - rest) adds k n n^T + (T / l)(I - n n^T) between its ends (the stiffness along it,
// and the string's across it). The modes are K v = w^2 M v; with M diagonal that is the ordinary
// symmetric problem M^-1/2 K M^-1/2 y = w^2 y.
#include "sb_structure.h"

#include "structure_record.h"

extern "C" {
#include "sb_tuning.h"
}

// The same bits on every machine, as the rest of the core: Eigen's scalar code (its SSE and AVX
// paths sum in another order, and the browser build has neither), and only its MPL-2.0 parts.
#define EIGEN_DONT_VECTORIZE
#define EIGEN_MPL2_ONLY
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

namespace {

const double two_pi = 6.28318530717958647692;

struct element {
    int a, b;            // degrees of freedom of the ends (2 each: x at 2i, y at 2i + 1); -1 where held
    double nx, ny;       // unit direction from a to b
    double along, across;// k, and T / l
    double damping;      // c along the axis
};

struct structure {
    std::vector<sb_spring_id> ids;        // the group, each once
    std::vector<double> k;                // each group spring's stiffness now
    std::vector<element> group, others;   // the group's springs (at scale 1), and the springs that reach it
    std::vector<double> mass;             // per moving particle
    std::vector<sb_particle_id> moving;   // the moving particles, in degree-of-freedom order
    int particles = 0;
};

void add_element(Eigen::MatrixXd &K, const element &e, double scale, bool damping)
{
    const double n[2] = {e.nx, e.ny};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            const double nn = n[i] * n[j];
            const double v = damping ? scale * e.damping * nn : scale * (e.along * nn + e.across * ((i == j) - nn));
            if (e.a >= 0)
                K(2 * e.a + i, 2 * e.a + j) += v;
            if (e.b >= 0)
                K(2 * e.b + i, 2 * e.b + j) += v;
            if (e.a >= 0 && e.b >= 0) {
                K(2 * e.a + i, 2 * e.b + j) -= v;
                K(2 * e.b + i, 2 * e.a + j) -= v;
            }
        }
}

/// K becomes M^-1/2 K M^-1/2.
void normalise(Eigen::MatrixXd &K, const structure &s)
{
    for (int i = 0; i < K.rows(); ++i)
        for (int j = 0; j < K.cols(); ++j)
            K(i, j) /= std::sqrt(s.mass[i / 2] * s.mass[j / 2]);
}

/// M^-1/2 (scale K_group + K_others) M^-1/2 (or the dampers' matrix the same way).
Eigen::MatrixXd mass_normalised(const structure &s, double scale, bool damping)
{
    const int n = 2 * s.particles;
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n);
    for (const element &e : s.group)
        add_element(K, e, scale, damping);
    for (const element &e : s.others)
        add_element(K, e, 1.0, damping);
    normalise(K, s);
    return K;
}

/// The first mode a spring resists in ascending eigenvalues ev: motions no spring resists (a free
/// body's drift and turn, a slack string's sideways sag) have eigenvalue 0 to rounding, a
/// ten-billionth of the largest, and are skipped (*free counts them); -1 if a mode is below zero
/// by more (the structure buckles: springs pushed shorter than they rest) or every mode is free.
int first_mode(const Eigen::VectorXd &ev, int *free)
{
    const double tol = 1e-10 * std::max(std::fabs(ev(0)), std::fabs(ev(ev.size() - 1)));
    int i = 0;
    while (i < ev.size() && std::fabs(ev(i)) <= tol)
        i += 1;
    if (free)
        *free = i;
    return i < ev.size() && ev(i) > tol && !(ev(0) < -tol) ? i : -1;
}

/// The eigenvalue `index` (ascending) at `scale`; NAN if the solver fails.
double eigenvalue(const structure &s, double scale, int index)
{
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(mass_normalised(s, scale, false), Eigen::EigenvaluesOnly);
    return es.info() == Eigen::Success ? es.eigenvalues()(index) : NAN;
}

/// An element for spring d, its ends' degrees of freedom from `dof` (-1: held).
element element_of(const sb_world *w, const sb_spring_def &d, const std::vector<int> &dof, double k,
                   double c)
{
    sb_particle_def pa, pb;
    sb_particle_get(w, d.a, &pa);
    sb_particle_get(w, d.b, &pb);
    double dx = pb.position.x - pa.position.x, dy = pb.position.y - pa.position.y, l = std::sqrt(dx * dx + dy * dy);
    element e;
    e.a = d.a.index < dof.size() ? dof[d.a.index] : -1;
    e.b = d.b.index < dof.size() ? dof[d.b.index] : -1;
    e.nx = l > 0.0 ? dx / l : 1.0;
    e.ny = l > 0.0 ? dy / l : 0.0;
    e.along = k;
    e.across = l > 0.0 ? k * (l - d.rest_length) / l : 0.0;
    e.damping = c;
    return e;
}

/// Builds the group: its springs, moving particles, and the springs outside it that reach them.
/// A rigid spring outside the group holds as a spring `stiff` times stiffer than the structure's
/// stiffest.
sb_status build(const sb_world *w, const sb_spring_id *springs, int n, structure &s, const char **bad_field)
{
    if (n <= 0 || !springs) {
        *bad_field = "springs";
        return SB_ERR_INVALID;
    }
    const sb_world_def def = sb_world_get_def(w);
    const double h = def.dt / def.substeps;
    std::vector<int> dof;
    std::vector<uint32_t> in_group; // slot -> generation + 1 of the group's spring there
    std::vector<sb_spring_def> defs;
    for (int i = 0; i < n; ++i) {
        sb_spring_def d;
        if (sb_spring_get(w, springs[i], &d) != SB_OK) {
            *bad_field = "springs";
            return SB_ERR_STALE;
        }
        if (sb_tuning_is_rigid(&d.tuning)) { // a rigid spring has no stiffness to scale
            *bad_field = "springs";
            return SB_ERR_INVALID;
        }
        if (springs[i].index >= in_group.size())
            in_group.resize(springs[i].index + 1, 0);
        if (in_group[springs[i].index] == springs[i].generation + 1)
            continue; // listed twice
        in_group[springs[i].index] = springs[i].generation + 1;
        s.ids.push_back(springs[i]);
        defs.push_back(d);
        const sb_particle_id ends[2] = {d.a, d.b};
        for (sb_particle_id p : ends) {
            sb_particle_def pd;
            sb_particle_get(w, p, &pd);
            if (p.index >= dof.size())
                dof.resize(p.index + 1, -1);
            if (!pd.fixed && dof[p.index] < 0) {
                dof[p.index] = s.particles++;
                s.mass.push_back(pd.mass);
                s.moving.push_back(p);
            }
        }
    }
    if (s.particles > SB_STRUCTURE_MAX_PARTICLES || s.particles == 0) {
        *bad_field = "springs";
        return SB_ERR_INVALID;
    }
    double stiffest = 0.0;
    for (size_t i = 0; i < s.ids.size(); ++i) {
        double k, c;
        sb_tuning_to_kc(&defs[i].tuning, sb_spring_reduced_mass(w, s.ids[i]), h, &k, &c);
        s.k.push_back(k);
        s.group.push_back(element_of(w, defs[i], dof, k, c));
        stiffest = std::max(stiffest, k);
    }
    sb_spring_id it = sb_null_spring();
    while (sb_world_next_spring(w, &it)) {
        if (it.index < in_group.size() && in_group[it.index] == it.generation + 1)
            continue;
        sb_spring_def d;
        sb_spring_get(w, it, &d);
        const bool reaches = (d.a.index < dof.size() && dof[d.a.index] >= 0) || (d.b.index < dof.size() && dof[d.b.index] >= 0);
        if (!reaches)
            continue;
        double k, c;
        if (sb_tuning_is_rigid(&d.tuning)) {
            k = 1e4 * stiffest;
            c = 0.0;
        } else {
            sb_tuning_to_kc(&d.tuning, sb_spring_reduced_mass(w, it), h, &k, &c);
        }
        s.others.push_back(element_of(w, d, dof, k, c));
    }
    return SB_OK;
}

/// The lowest mode a spring resists at `scale`: its eigenvalue w^2, its unit vector y (of the
/// mass-normalised problem: d = M^-1/2 y has sum m |d|^2 = 1) and the free motions passed over.
/// False where the structure buckles or no spring resists any of its motions.
bool lowest_mode(const structure &s, double scale, double *w2, Eigen::VectorXd *y, int *free)
{
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(mass_normalised(s, scale, false));
    const int first = es.info() == Eigen::Success ? first_mode(es.eigenvalues(), free) : -1;
    if (first < 0)
        return false;
    *w2 = es.eigenvalues()(first);
    *y = es.eigenvectors().col(first);
    return true;
}

/// The mode y at `scale`, of eigenvalue w2: its frequency and damping ratio (the damping matrix on
/// the mode shape: y is unit, so y^T M^-1/2 C M^-1/2 y = 2 zeta w).
void describe(const structure &s, double scale, double w2, const Eigen::VectorXd &y, int free, sb_structure_mode *mode)
{
    if (!mode)
        return;
    const double w = std::sqrt(w2);
    mode->hertz = w / two_pi;
    mode->damping_ratio = y.dot(mass_normalised(s, scale, true) * y) / (2.0 * w);
    mode->scale = scale;
    mode->particles = s.particles;
    mode->springs = (int)s.ids.size();
    mode->free = free;
}

/// The beta of c = beta k that gives mode y at `scale` the damping ratio zeta: its damping ratio
/// is y^T D y / (2 w), D the dampers along the springs, and the group's part is linear in beta.
/// Along the springs (a chain's stretch) the group's part is beta w^2, so beta = 2 zeta / w: damping
/// in proportion to stiffness. A mode that moves across its springs (a string's sideways swing)
/// stretches them little and their dampers barely reach it: beta is held to the proportional one
/// (more only damps the springs' own fast motion, which the methods then run less well), and the
/// mode keeps what that gives (sb_structure_mode.damping_ratio says).
double damping_for(const structure &s, double scale, const Eigen::VectorXd &y, double w, double zeta)
{
    const int n = 2 * s.particles;
    Eigen::MatrixXd group = Eigen::MatrixXd::Zero(n, n), others = Eigen::MatrixXd::Zero(n, n);
    for (element e : s.group) {
        e.damping = e.along; // beta = 1
        add_element(group, e, scale, true);
    }
    for (const element &e : s.others)
        add_element(others, e, 1.0, true);
    normalise(group, s);
    normalise(others, s);
    const double reach = y.dot(group * y), theirs = y.dot(others * y);
    return std::max(0.0, 2.0 * zeta * w - theirs) / std::max(reach, w * w);
}

} // namespace

extern "C" sb_status sb_structure_mode_of(const sb_world *world, const sb_spring_id *springs, int n, sb_structure_mode *mode,
                                          const char **bad_field)
{
    const char *ignored;
    bad_field = bad_field ? bad_field : &ignored;
    try {
        structure s;
        sb_status st = build(world, springs, n, s, bad_field);
        if (st != SB_OK)
            return st;
        double w2;
        Eigen::VectorXd y;
        int free;
        if (!lowest_mode(s, 1.0, &w2, &y, &free)) {
            *bad_field = "structure"; // it buckles, or no spring resists any of its motions
            return SB_ERR_INVALID;
        }
        describe(s, 1.0, w2, y, free, mode);
        return SB_OK;
    } catch (const std::bad_alloc &) {
        return SB_ERR_NO_MEMORY;
    }
}

extern "C" sb_status sb_structure_tune(sb_world *world, const sb_spring_id *springs, int n, double hertz, double damping_ratio,
                                       double seconds, sb_structure_mode *mode, const char **bad_field)
{
    const char *ignored;
    bad_field = bad_field ? bad_field : &ignored;
    if (!(hertz > 0.0 && hertz <= 1e4)) {
        *bad_field = "hertz";
        return SB_ERR_INVALID;
    }
    if (!(damping_ratio >= 0.0 && damping_ratio <= 100.0)) {
        *bad_field = "damping_ratio";
        return SB_ERR_INVALID;
    }
    if (!(seconds >= 0.0 && seconds <= 1e6)) {
        *bad_field = "seconds";
        return SB_ERR_INVALID;
    }
    try {
        structure s;
        sb_status st = build(world, springs, n, s, bad_field);
        if (st != SB_OK)
            return st;
        const double w = two_pi * hertz, w2 = w * w;
        // the mode to tune: the first one a spring resists as the group is now (motions free at
        // this scale are free at any), followed by its index through the scales tried
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> at_one(mass_normalised(s, 1.0, false), Eigen::EigenvaluesOnly);
        const int first = at_one.info() == Eigen::Success ? first_mode(at_one.eigenvalues(), NULL) : -1;
        if (first < 0) {
            *bad_field = "structure"; // it buckles, or no spring resists any of its motions
            return SB_ERR_INVALID;
        }
        double scale;
        if (s.others.empty()) { // the whole stiffness scales: so does w^2
            scale = w2 / at_one.eigenvalues()(first);
        } else { // springs outside the group keep theirs: w^2 grows with the scale, so bisect on it
            double lo = 1e-24, hi = 1e24; // geometric halves (square roots: the same bits everywhere)
            if (!(eigenvalue(s, lo, first) < w2)) { // the springs outside alone hold it that fast
                *bad_field = "hertz";
                return SB_ERR_INVALID;
            }
            if (!(eigenvalue(s, hi, first) > w2)) {
                *bad_field = "structure";
                return SB_ERR_INVALID;
            }
            for (int i = 0; i < 200 && hi > lo * (1.0 + 1e-13); ++i) {
                const double mid = std::sqrt(lo * hi);
                (eigenvalue(s, mid, first) < w2 ? lo : hi) = mid;
            }
            scale = std::sqrt(lo * hi);
        }
        double tuned_w2;
        Eigen::VectorXd y;
        int free;
        if (!lowest_mode(s, scale, &tuned_w2, &y, &free)) {
            *bad_field = "structure";
            return SB_ERR_INVALID;
        }
        const double beta = damping_for(s, scale, y, w, damping_ratio); // dampers leave y as it is
        for (size_t i = 0; i < s.ids.size(); ++i) {
            sb_spring_def d;
            sb_spring_get(world, s.ids[i], &d);
            double rest = d.rest_length;
            sb_tuning target = d.tuning;
            sb_spring_ramp_target(world, s.ids[i], &rest, &target); // a ramp running: its end
            const sb_tuning t = sb_tuning_raw(scale * s.k[i], beta * scale * s.k[i]);
            st = seconds > 0.0 ? sb_spring_retune(world, s.ids[i], rest, &t, seconds, bad_field)
                               : sb_spring_set(world, s.ids[i], rest, &t, bad_field);
            if (st != SB_OK)
                return st;
            s.group[i].damping = beta * s.k[i]; // at scale 1, as the group's stiffness (describe scales it)
        }
        if (!structure_remember(world, s.ids.data(), (int)s.ids.size(), hertz, damping_ratio))
            return SB_ERR_NO_MEMORY;
        describe(s, scale, tuned_w2, y, free, mode);
        return SB_OK;
    } catch (const std::bad_alloc &) {
        return SB_ERR_NO_MEMORY;
    }
}

extern "C" sb_status sb_structure_mode_shape(const sb_world *world, const sb_spring_id *springs, int n,
                                             sb_particle_id *particles, double *shape, int capacity, int *count)
{
    const char *field;
    *count = 0;
    try {
        structure s;
        sb_status st = build(world, springs, n, s, &field);
        if (st != SB_OK)
            return st;
        if (s.particles > capacity)
            return SB_ERR_INVALID;
        double w2;
        Eigen::VectorXd y;
        int free;
        if (!lowest_mode(s, 1.0, &w2, &y, &free))
            return SB_ERR_INVALID;
        for (int i = 0; i < s.particles; ++i) {
            particles[i] = s.moving[i];
            shape[2 * i] = y(2 * i) / std::sqrt(s.mass[i]);
            shape[2 * i + 1] = y(2 * i + 1) / std::sqrt(s.mass[i]);
        }
        *count = s.particles;
        return SB_OK;
    } catch (const std::bad_alloc &) {
        return SB_ERR_NO_MEMORY;
    }
}
