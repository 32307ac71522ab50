// The xpbd method: extended position based dynamics (Macklin, Mueller and Chentanez 2016; not
// one of the seeds, springbox's own addition). Compliance alpha = 1/k, alpha~ = alpha / h^2, and
// damping gamma = alpha~ h c, so that at convergence the constraint force is -k C - c dC/dt
// integrated by implicit Euler. Rigid springs' multipliers start at zero each sub-step, so small
// sub-steps carry the stiffness; tuned springs' are warm started (xpbd_springs_begin).
#include "springs_kernels.h"

// For a lone spring one XPBD iteration solves the linearised implicit Euler step exactly, so the
// discrete map is the soft method's (method_soft.c): the same matching and the same network
// limit. Constants: stiff = alpha~ = 1/(k h^2), damp = gamma = c/(k h), with k and c those of
// implicit_euler_kc (method_soft.c), written with the delivered poles so that they stay finite at a pole at 0
// (Nissen's Cs = Cd = 1, Nissen's rigid-spring article's one-step spring, where k and c are
// infinite, and through them the two would read 0 and NaN):
// alpha~ = det / ((1 + det - trace) m), gamma = (trace - 2 det) / (1 + det - trace).
// 1 + gamma = (c + h k)/(h k) stays positive: c + h k = m (1 - det)/(det h) > 0.
static coef_result xpbd_coefficients(sb_poles target, double m, double h, double allowed_load, spring_coef *out)
{
    (void)h;
    coef_result r;
    r.delivered = implicit_euler_poles_within(target, allowed_load, &r.clamped);
    const double det = r.delivered.det, kappa = 1.0 + det - r.delivered.trace;
    const bool spring = kappa > 0.0 && det >= 0.0; // k > 0
    out->stiff = spring ? det / (kappa * m) : INFINITY; // no spring: the update skips it
    out->damp = spring ? (r.delivered.trace - 2.0 * det) / kappa : 0.0;
    out->scale = 0.0;
    return r;
}

// The multipliers of tuned springs are warm started from the last sub-step (as the soft method's
// impulses are), with the move they make: restarting them at zero each sub-step, a damped spring
// had to find its load again through iterations its damping slows ((1 + gamma) in the update),
// and a hanging chain at damping ratio 20 sagged 2.5 times too far at one sub-step. A lone
// spring's step is linear in lambda, so one iteration still solves it exactly from any start.
// Rigid ones restart at zero: warm starting them unsettled chains (the wrecking ball). A warm
// start never holds more than the stretch the prediction left calls for (-C / alpha~, with its
// sign): a load the last sub-step held and this one no longer has, pushed again at one sub-step
// under a drag's yank, fed itself back and a retuned chain blew up.
static void xpbd_springs_begin(sb_world *w, double h)
{
    (void)h;
    sb_vec2 *pos = w->pos;
    const double tuned = tuned_warm_fraction(w);
    for (int k = 0; k < w->pack.order_count; ++k) {
        double lambda = w->pack.krigid[k] ? 0.0 : w->pack.kimp[k] * tuned;
        w->pack.kg[k] = 0.0;
        int a = w->pack.ka[k], b = w->pack.kb[k];
        double dx = pos[b].x - pos[a].x, dy = pos[b].y - pos[a].y, len = sqrt(dx * dx + dy * dy);
        if (w->pack.kstiff[k] > 0.0 && isfinite(w->pack.kstiff[k])) {
            const double hold = -(len - w->pack.krest[k]) / w->pack.kstiff[k]; // the multiplier that holds the stretch now
            lambda = lambda * hold <= 0.0 ? 0.0 : fabs(lambda) > fabs(hold) ? hold : lambda;
        }
        if (lambda == 0.0 || len < 1e-12 || !isfinite(w->pack.kstiff[k]))
            continue;
        double nx = dx / len, ny = dy / len;
        spring_start_axis(w, k, &nx, &ny); // as the iterations move it
        w->pack.kg[k] = lambda; // lambda, position-level, warm started with the move it makes
        pos[a].x -= w->pack.kwa[k] * lambda * nx;
        pos[a].y -= w->pack.kwa[k] * lambda * ny;
        pos[b].x += w->pack.kwb[k] * lambda * nx;
        pos[b].y += w->pack.kwb[k] * lambda * ny;
    }
}

// A rigid spring moves its ends along the axis they had when the sub-step began, to its exact
// length: SHAKE's position step (shake_length_move). With the velocity then taken from the move,
// that is the RATTLE integrator, which keeps a pendulum's energy; moving them along the predicted
// axis, as XPBD does, shortens each step of a turn (the ends land at atan(h v / len) across where
// they should be at h v / len), and a rigid pendulum loses most of its swing in a minute. Returns
// false where SHAKE does not apply, and the spring is solved as XPBD solves it.
static bool shake_one(sb_world *w, int k, double wsum)
{
    sb_vec2 *pos = w->pos;
    const sb_vec2 *prev = w->scratch.prev;
    const int a = w->pack.ka[k], b = w->pack.kb[k];
    if (w->contact.art && (articulation_holds(w, a) || articulation_holds(w, b)))
        return false; // a structure under a heavy contact: its solve holds it (articulation.c)
    const double nx = prev[b].x - prev[a].x, ny = prev[b].y - prev[a].y, n = sqrt(nx * nx + ny * ny);
    double move;
    if (n < 1e-12 || !shake_length_move(pos[b].x - pos[a].x, pos[b].y - pos[a].y, nx / n, ny / n, w->pack.krest[k], &move))
        return false;
    const double s = move / wsum;
    w->pack.kg[k] += s;
    pos[a].x -= w->pack.kwa[k] * s * (nx / n);
    pos[a].y -= w->pack.kwa[k] * s * (ny / n);
    pos[b].x += w->pack.kwb[k] * s * (nx / n);
    pos[b].y += w->pack.kwb[k] * s * (ny / n);
    return true;
}

// A tuned spring's ends move along the axis they had when the sub-step began (spring_start_axis),
// as a rigid one's do, with its C and rate from the predicted axis n: a move s along that axis u
// changes C by (n . u) s, which the update's denominator takes.
static void xpbd_springs_iterate(sb_world *w, double h)
{
    (void)h;
    sb_vec2 *pos = w->pos, *prev = w->scratch.prev;
    for (int k = 0; k < w->pack.order_count; ++k) {
        double wsum = w->pack.kwa[k] + w->pack.kwb[k], alpha_tilde = w->pack.kstiff[k], gamma = w->pack.kdamp[k];
        if (wsum == 0.0 || !isfinite(alpha_tilde))
            continue;
        if (w->pack.krigid[k] && shake_one(w, k, wsum))
            continue;
        int a = w->pack.ka[k], b = w->pack.kb[k];
        double dx = pos[b].x - pos[a].x, dy = pos[b].y - pos[a].y;
        double len = sqrt(dx * dx + dy * dy);
        if (len < 1e-12)
            continue;
        double nx = dx / len, ny = dy / len, ux = nx, uy = ny;
        spring_start_axis(w, k, &ux, &uy);
        double approach = nx * ((pos[b].x - prev[b].x) - (pos[a].x - prev[a].x)) +
                          ny * ((pos[b].y - prev[b].y) - (pos[a].y - prev[a].y));
        double dlambda = xpbd_delta_lambda(len - w->pack.krest[k], alpha_tilde, w->pack.kg[k], gamma, approach,
                                           wsum * (nx * ux + ny * uy));
        w->pack.kg[k] += dlambda;
        pos[a].x -= w->pack.kwa[k] * dlambda * ux;
        pos[a].y -= w->pack.kwa[k] * dlambda * uy;
        pos[b].x += w->pack.kwb[k] * dlambda * ux;
        pos[b].y += w->pack.kwb[k] * dlambda * uy;
    }
}

static void xpbd_springs_end(sb_world *w, double h)
{
    for (int k = 0; k < w->pack.order_count; ++k) {
        w->pack.kimp[k] = w->pack.kg[k]; // reads back as the spring's impulse
        w->pack.ktension[k] = w->pack.kg[k] / h; // lambda moves positions: lambda / h is the impulse
    }
}

const sb_method_kernels xpbd_method = {
    .name = "xpbd",
    .order = SB_ORDER_POSITIONS,
    .load = implicit_euler_load, // one iteration solves implicit Euler for a lone spring (method_soft.c)
    .coefficients = xpbd_coefficients,
    .network_target = implicit_network_target, // its map is the soft method's (method_soft.c)
    .springs_begin = xpbd_springs_begin,
    .springs_iterate = xpbd_springs_iterate,
    .constraints_iterate = constraints_xpbd_iterate,
    .springs_end = xpbd_springs_end,
};
