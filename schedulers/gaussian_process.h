// Gaussian-process regression with a Matérn 5/2 kernel, for the `gp`
// searcher: exact inference by Cholesky factorisation (Eigen).
#ifndef TUNER_SCHEDULERS_GAUSSIAN_PROCESS_H_
#define TUNER_SCHEDULERS_GAUSSIAN_PROCESS_H_

#include <Eigen/Dense>

namespace tuner::schedulers {

// The kernel's hyperparameters, in log space:
// k(a, b) = exp(log_signal) * m(r) + exp(log_noise) * [a == b],
// r^2 = sum_j ((a_j - b_j) / exp(log_lengthscale_j))^2,
// m(r) = (1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r).
struct GpHyper {
  Eigen::VectorXd log_lengthscale;  // one per input dimension (ARD)
  double log_signal = 0;
  double log_noise = -4.6;  // a noise variance of 0.01

  // Lengthscales of 0.5, unit signal, noise variance 0.01 (for inputs in
  // the unit cube and standardised targets).
  static GpHyper Default(int dims);
};

// The posterior of f at a point: mean and variance (of f, without noise),
// in the units of the targets given.
struct GpPrediction {
  double mean = 0;
  double variance = 0;
};

// A GP with a constant mean fitted to n points (rows of `x`) and their
// targets `y`. Targets are standardised internally (mean 0, variance 1;
// predictions come back in y's units). Deterministic: the same inputs give
// the same posterior bit for bit.
class GaussianProcess {
 public:
  // REQUIRES: x.rows() == y.size() >= 1, finite entries.
  GaussianProcess(Eigen::MatrixXd x, Eigen::VectorXd y, GpHyper hyper);

  // The hyperparameters that maximise the log marginal likelihood plus a
  // weak log-normal prior on each (so a handful of points cannot drive a
  // lengthscale to 0 or infinity): `iterations` steps of Adam from `start`,
  // within fixed bounds. Cost O(iterations * (n^3 + d n^2)).
  static GpHyper FitHyper(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                          const GpHyper& start, int iterations);

  GpPrediction Predict(const Eigen::VectorXd& point) const;
  // Predict for each row of `points`: O(n^2) per row.
  void PredictRows(const Eigen::MatrixXd& points, Eigen::VectorXd& mean,
                   Eigen::VectorXd& variance) const;

  // The same GP with `pending` rows added as observations of their current
  // posterior mean ("kriging believer"): the mean is unchanged, the
  // variance at and near them shrinks. `believed`, if given, receives
  // those values: counted in the incumbent of expected improvement, they
  // make a pending point no longer worth asking for, so a batch spreads.
  GaussianProcess WithFantasies(const Eigen::MatrixXd& pending,
                                Eigen::VectorXd* believed = nullptr) const;

  // log p(y | x, hyper) of the standardised targets.
  double LogMarginalLikelihood() const;
  const GpHyper& hyper() const { return hyper_; }
  int size() const { return static_cast<int>(x_.rows()); }

 private:
  GaussianProcess() = default;
  void Factorise();

  Eigen::MatrixXd x_;
  Eigen::VectorXd y_;  // standardised
  double y_mean_ = 0, y_scale_ = 1;
  GpHyper hyper_;
  Eigen::LLT<Eigen::MatrixXd> chol_;
  Eigen::VectorXd alpha_;  // K^-1 y
};

// The Matérn 5/2 kernel matrix between the rows of `a` and of `b`, without
// noise.
Eigen::MatrixXd Matern52(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                         const GpHyper& hyper);

// Expected improvement below `best` of a Gaussian with `mean` and
// `variance` (for minimisation): E[max(best - f, 0)] =
// (best - mean) Phi(z) + sd phi(z), z = (best - mean) / sd; max(best -
// mean, 0) where the variance is 0.
double ExpectedImprovement(double mean, double variance, double best);

// Normal scores (a Gaussian copula of the targets): each of the n values
// becomes the standard normal quantile of (r + 0.5) / n, r its rank from 0
// (the least), tied values sharing the mean of their ranks. Monotone, so
// the least value stays the least; a few extreme values (a diverged
// trial) no longer squeeze the rest into a sliver of the scale.
Eigen::VectorXd NormalScores(const Eigen::VectorXd& y);

}  // namespace tuner::schedulers

#endif  // TUNER_SCHEDULERS_GAUSSIAN_PROCESS_H_
