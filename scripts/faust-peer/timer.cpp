// Faust architecture file of Hooke's Faust peer: an offline timing harness with no audio device.
// `faust -double -a timer.cpp string.dsp -o string.cpp` puts the compiled string where
// <<includeclass>> stands; then
//     g++ -O3 -march=native string.cpp -o string && ./string [WORK [REPS [BLOCK [CHECK]]]]
// 1. Times: runs compute() in blocks of BLOCK samples (default 512) until WORK mass-steps
//    (default 2e8) are done, from a freshly initialised string, REPS times (default 3), and
//    keeps the fastest. Subnormals are flushed to zero, as `hooke bench` does and as Faust's
//    audio architectures do.
// 2. Checks: runs the first CHECK samples (default 48000) again and compares them with its own
//    symplectic-Euler loop in SI units, on the values the program declares (peer_* metadata,
//    written by string_dsp.py). It fails (exit 1) if they differ by more than 1e-9 of the peak.
// The last line printed is "<rate> mass-steps/s", as with `hooke bench`.
#define FAUSTFLOAT double

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "faust/dsp/dsp.h"
#include "faust/gui/UI.h"
#include "faust/gui/meta.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

<<includeIntrinsic>>

<<includeclass>>

namespace {

// Subnormal inputs and results become zero from here on (x86: FTZ and DAZ; aarch64: FZ).
void flush_subnormals() {
#if defined(__SSE2__)
    _mm_setcsr(_mm_getcsr() | 0x8040);
#elif defined(__aarch64__)
    unsigned long fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr | (1ul << 24)));
#endif
}

// Collects the program's `declare` lines.
struct Declared : Meta {
    std::map<std::string, std::string> values;
    void declare(const char* key, const char* value) override { values[key] = value; }
    double number(const char* key) const {
        auto found = values.find(key);
        if (found == values.end()) {
            std::fprintf(stderr, "the program declares no %s (was it written by string_dsp.py?)\n", key);
            std::exit(2);
        }
        return std::atof(found->second.c_str());
    }
};

// Runs `samples` samples of a freshly initialised dsp in blocks; keeps them if `keep` is given.
void run(mydsp& dsp, int rate, long samples, int block, std::vector<double>* keep) {
    std::vector<double> buffer(block);
    double* outputs[1] = {buffer.data()};
    dsp.init(rate);
    for (long done = 0; done < samples; done += block) {
        int count = (int)std::min<long>(block, samples - done);
        dsp.compute(count, nullptr, outputs);
        if (keep) keep->insert(keep->end(), buffer.begin(), buffer.begin() + count);
    }
}

}  // namespace

int main(int argc, char** argv) {
    const double work = argc > 1 ? std::atof(argv[1]) : 2e8;
    const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
    const int block = argc > 3 ? std::atoi(argv[3]) : 512;
    const long check = argc > 4 ? std::atol(argv[4]) : 48000;
    if (!(work > 0) || reps < 1 || block < 1 || check < 2) {
        std::fprintf(stderr, "usage: %s [WORK mass-steps [REPS [BLOCK samples [CHECK samples]]]]\n", argv[0]);
        return 2;
    }
    flush_subnormals();

    mydsp dsp;
    Declared declared;
    dsp.metadata(&declared);
    const long n = (long)declared.number("peer_masses");
    const double mass = declared.number("peer_mass");
    const double stiffness = declared.number("peer_stiffness");
    const double damping = declared.number("peer_damping");
    const int rate = (int)declared.number("peer_rate");
    const double displacement = declared.number("peer_displacement");
    const long observed = (long)declared.number("peer_observed");
    if (dsp.getNumInputs() != 0 || dsp.getNumOutputs() != 1) {
        std::fprintf(stderr, "expected a program with no input and one output\n");
        return 2;
    }

    // 1. Timing: whole blocks, WORK mass-steps or a little more.
    const long samples = ((long)std::ceil(work / n / block)) * block;
    double best = 1e300;
    std::printf("faust string of %ld masses: %ld samples a repetition, block %d, seconds:", n, samples, block);
    for (int r = 0; r < reps; ++r) {
        auto start = std::chrono::steady_clock::now();
        run(dsp, rate, samples, block, nullptr);
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf(" %.4f", seconds);
        best = std::min(best, seconds);
    }
    std::printf("\n");

    // 2. Check against symplectic Euler in SI units, velocities kept explicitly:
    //    v += h (K (x[i-1] - 2 x[i] + x[i+1]) + Z (v[i-1] - 2 v[i] + v[i+1])) / M, then x += h v,
    //    with both ends fixed at 0.
    std::vector<double> faust;
    run(dsp, rate, check, block, &faust);
    const double h = 1.0 / rate;
    std::vector<double> x(n + 2, 0.0), v(n + 2, 0.0), a(n + 2, 0.0);
    x[observed + 1] = displacement;
    // Faust's sample s is the position after s steps (its first sample is the start).
    double worst = 0.0, peak = 0.0;
    for (long s = 0; s < check; ++s) {
        const double y = x[observed + 1];
        peak = std::max(peak, std::fabs(y));
        worst = std::max(worst, std::fabs(faust[s] - y));
        for (long i = 1; i <= n; ++i)
            a[i] = (stiffness * (x[i - 1] - 2 * x[i] + x[i + 1]) + damping * (v[i - 1] - 2 * v[i] + v[i + 1])) / mass;
        for (long i = 1; i <= n; ++i) {
            v[i] += h * a[i];
            x[i] += h * v[i];
        }
    }
    const bool same = worst <= 1e-9 * peak;
    std::printf("check over %ld samples: max |Faust - symplectic Euler| = %.3e m, %.3e of the peak (%.3e m): %s\n",
                check, worst, worst / peak, peak, same ? "the same string" : "NOT THE SAME STRING");
    if (!same) return 1;
    std::printf("%.4e mass-steps/s\n", (double)n * samples / best);
    return 0;
}
