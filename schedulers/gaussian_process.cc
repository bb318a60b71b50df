#include "schedulers/gaussian_process.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <unsupported/Eigen/SpecialFunctions>
#include <utility>
#include <vector>

namespace tuner::schedulers {

namespace {

constexpr double kSqrt5 = 2.23606797749978969641;
// Bounds of the fitted hyperparameters (log space), for inputs in the unit
// cube and standardised targets.
constexpr double kMinLogLength = -4.6, kMaxLogLength = 3.0;  // 0.01 .. 20
constexpr double kMinLogSignal = -4.6, kMaxLogSignal = 4.6;  // 0.01 .. 100
constexpr double kMinLogNoise = -13.8, kMaxLogNoise = 0;     // 1e-6 .. 1
// The weak prior: log-normal around the defaults, these widths.
constexpr double kLengthPriorSd = 1.0, kSignalPriorSd = 1.0;
constexpr double kNoisePriorSd = 2.0;

// Squared scaled distances between the rows of a and b, per dimension
// summed: r^2.
Eigen::MatrixXd ScaledSquaredDistances(const Eigen::MatrixXd& a,
                                       const Eigen::MatrixXd& b,
                                       const Eigen::VectorXd& inv_length) {
  Eigen::MatrixXd as = a * inv_length.asDiagonal();
  Eigen::MatrixXd bs = b * inv_length.asDiagonal();
  Eigen::MatrixXd d2 =
      (-2.0 * as * bs.transpose()).colwise() + as.rowwise().squaredNorm();
  d2.rowwise() += bs.rowwise().squaredNorm().transpose();
  return d2.cwiseMax(0.0);
}

double PhiDensity(double z) {
  return std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
}
double Phi(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

// The hyperparameters as one vector: lengthscales, signal, noise.
Eigen::VectorXd Pack(const GpHyper& h) {
  Eigen::VectorXd theta(h.log_lengthscale.size() + 2);
  theta << h.log_lengthscale, h.log_signal, h.log_noise;
  return theta;
}
GpHyper Unpack(const Eigen::VectorXd& theta) {
  GpHyper h;
  auto d = theta.size() - 2;
  h.log_lengthscale = theta.head(d);
  h.log_signal = theta(d);
  h.log_noise = theta(d + 1);
  return h;
}
void Clamp(Eigen::VectorXd& theta) {
  auto d = theta.size() - 2;
  for (Eigen::Index j = 0; j < d; ++j)
    theta(j) = std::clamp(theta(j), kMinLogLength, kMaxLogLength);
  theta(d) = std::clamp(theta(d), kMinLogSignal, kMaxLogSignal);
  theta(d + 1) = std::clamp(theta(d + 1), kMinLogNoise, kMaxLogNoise);
}

// The log prior of theta and its gradient (added to `grad`).
double LogPrior(const Eigen::VectorXd& theta, const GpHyper& centre,
                Eigen::VectorXd& grad) {
  Eigen::VectorXd mu = Pack(centre);
  auto d = theta.size() - 2;
  double sum = 0;
  for (Eigen::Index j = 0; j < theta.size(); ++j) {
    double sd =
        j < d ? kLengthPriorSd : (j == d ? kSignalPriorSd : kNoisePriorSd);
    double z = (theta(j) - mu(j)) / sd;
    sum -= 0.5 * z * z;
    grad(j) -= z / sd;
  }
  return sum;
}

// The log marginal likelihood of standardised y under theta and its
// gradient; -infinity where the kernel matrix cannot be factorised.
double LogLikelihood(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                     const Eigen::VectorXd& theta, Eigen::VectorXd& grad) {
  GpHyper h = Unpack(theta);
  const auto n = x.rows(), d = x.cols();
  Eigen::VectorXd inv_length = (-h.log_lengthscale.array()).exp();
  Eigen::MatrixXd r = ScaledSquaredDistances(x, x, inv_length).cwiseSqrt();
  Eigen::ArrayXXd e = (-kSqrt5 * r.array()).exp();
  double signal = std::exp(h.log_signal), noise = std::exp(h.log_noise);
  Eigen::MatrixXd m =
      ((1 + kSqrt5 * r.array() + 5.0 / 3.0 * r.array().square()) * e).matrix();
  Eigen::MatrixXd k = signal * m;
  k.diagonal().array() += noise + 1e-8;
  Eigen::LLT<Eigen::MatrixXd> chol(k);
  grad.setZero(theta.size());
  if (chol.info() != Eigen::Success)
    return -std::numeric_limits<double>::infinity();
  Eigen::VectorXd alpha = chol.solve(y);
  Eigen::MatrixXd w =
      alpha * alpha.transpose() - chol.solve(Eigen::MatrixXd::Identity(n, n));
  // dK/dlog l_j = signal (5/3)(1 + sqrt5 r) e^(-sqrt5 r) (dx_j / l_j)^2.
  Eigen::MatrixXd g =
      (w.array() * signal * 5.0 / 3.0 * (1 + kSqrt5 * r.array()) * e).matrix();
  for (Eigen::Index j = 0; j < d; ++j) {
    Eigen::VectorXd c = x.col(j) * inv_length(j);
    Eigen::MatrixXd diff2 =
        (c.replicate(1, n) - c.transpose().replicate(n, 1)).array().square();
    grad(j) = 0.5 * (g.array() * diff2.array()).sum();
  }
  grad(d) = 0.5 * (w.array() * (signal * m).array()).sum();
  grad(d + 1) = 0.5 * noise * w.trace();
  double log_det = 2 * chol.matrixLLT().diagonal().array().log().sum();
  return -0.5 * y.dot(alpha) - 0.5 * log_det -
         0.5 * static_cast<double>(n) * std::log(2 * std::numbers::pi);
}

}  // namespace

GpHyper GpHyper::Default(int dims) {
  GpHyper h;
  h.log_lengthscale = Eigen::VectorXd::Constant(dims, std::log(0.5));
  return h;
}

Eigen::MatrixXd Matern52(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                         const GpHyper& hyper) {
  Eigen::VectorXd inv_length = (-hyper.log_lengthscale.array()).exp();
  Eigen::ArrayXXd r = ScaledSquaredDistances(a, b, inv_length).cwiseSqrt();
  return (std::exp(hyper.log_signal) * (1 + kSqrt5 * r + 5.0 / 3.0 * r * r) *
          (-kSqrt5 * r).exp())
      .matrix();
}

GaussianProcess::GaussianProcess(Eigen::MatrixXd x, Eigen::VectorXd y,
                                 GpHyper hyper)
    : x_(std::move(x)), hyper_(std::move(hyper)) {
  const auto n = static_cast<double>(y.size());
  y_mean_ = y.mean();
  double var = (y.array() - y_mean_).square().sum() / n;
  y_scale_ = var > 1e-24 ? std::sqrt(var) : 1.0;
  y_ = (y.array() - y_mean_) / y_scale_;
  Factorise();
}

void GaussianProcess::Factorise() {
  Eigen::MatrixXd k = Matern52(x_, x_, hyper_);
  double jitter = 1e-8;
  for (int attempt = 0; attempt < 8; ++attempt, jitter *= 100) {
    Eigen::MatrixXd kn = k;
    kn.diagonal().array() += std::exp(hyper_.log_noise) + jitter;
    chol_.compute(kn);
    if (chol_.info() == Eigen::Success) break;
  }
  alpha_ = chol_.solve(y_);
}

GpHyper GaussianProcess::FitHyper(const Eigen::MatrixXd& x,
                                  const Eigen::VectorXd& y,
                                  const GpHyper& start, int iterations) {
  const auto n = static_cast<double>(y.size());
  double mean = y.mean();
  double var = (y.array() - mean).square().sum() / n;
  Eigen::VectorXd ys = (y.array() - mean) / (var > 1e-24 ? std::sqrt(var) : 1);
  GpHyper centre = GpHyper::Default(static_cast<int>(x.cols()));
  Eigen::VectorXd theta = Pack(start), best = theta;
  Clamp(theta);
  Eigen::VectorXd m1 = Eigen::VectorXd::Zero(theta.size()), m2 = m1, grad;
  double best_value = -std::numeric_limits<double>::infinity();
  constexpr double kRate = 0.1, kBeta1 = 0.9, kBeta2 = 0.999;
  for (int step = 1; step <= iterations + 1; ++step) {
    double value = LogLikelihood(x, ys, theta, grad);
    value += LogPrior(theta, centre, grad);
    if (value > best_value) best_value = value, best = theta;
    if (step > iterations || !std::isfinite(value)) break;
    m1 = kBeta1 * m1 + (1 - kBeta1) * grad;
    m2 = kBeta2 * m2 + (1 - kBeta2) * grad.cwiseProduct(grad);
    Eigen::VectorXd m1_hat = m1 / (1 - std::pow(kBeta1, step));
    Eigen::VectorXd m2_hat = m2 / (1 - std::pow(kBeta2, step));
    theta += kRate *
             m1_hat.cwiseQuotient((m2_hat.cwiseSqrt().array() + 1e-8).matrix());
    Clamp(theta);
  }
  return Unpack(best);
}

GpPrediction GaussianProcess::Predict(const Eigen::VectorXd& point) const {
  Eigen::VectorXd mean, variance;
  PredictRows(point.transpose(), mean, variance);
  return {mean(0), variance(0)};
}

void GaussianProcess::PredictRows(const Eigen::MatrixXd& points,
                                  Eigen::VectorXd& mean,
                                  Eigen::VectorXd& variance) const {
  Eigen::MatrixXd ks = Matern52(x_, points, hyper_);  // n x m
  mean = (ks.transpose() * alpha_).array() * y_scale_ + y_mean_;
  Eigen::MatrixXd v = chol_.matrixL().solve(ks);
  Eigen::ArrayXd latent =
      (std::exp(hyper_.log_signal) - v.colwise().squaredNorm().array())
          .cwiseMax(0.0);
  variance = latent * y_scale_ * y_scale_;
}

GaussianProcess GaussianProcess::WithFantasies(
    const Eigen::MatrixXd& pending, Eigen::VectorXd* believed) const {
  Eigen::VectorXd mean, variance;
  PredictRows(pending, mean, variance);
  if (believed) *believed = mean;
  if (pending.rows() == 0) return *this;
  GaussianProcess more;
  more.x_.resize(x_.rows() + pending.rows(), x_.cols());
  more.x_ << x_, pending;
  more.y_.resize(y_.size() + pending.rows());
  more.y_ << y_, (mean.array() - y_mean_) / y_scale_;
  more.y_mean_ = y_mean_;
  more.y_scale_ = y_scale_;
  more.hyper_ = hyper_;
  more.Factorise();
  return more;
}

double GaussianProcess::LogMarginalLikelihood() const {
  double log_det = 2 * chol_.matrixLLT().diagonal().array().log().sum();
  return -0.5 * y_.dot(alpha_) - 0.5 * log_det -
         0.5 * static_cast<double>(y_.size()) * std::log(2 * std::numbers::pi);
}

double ExpectedImprovement(double mean, double variance, double best) {
  double gap = best - mean;
  if (!(variance > 0)) return std::max(gap, 0.0);
  double sd = std::sqrt(variance);
  double z = gap / sd;
  return gap * Phi(z) + sd * PhiDensity(z);
}

Eigen::VectorXd NormalScores(const Eigen::VectorXd& y) {
  const auto n = static_cast<size_t>(y.size());
  std::vector<Eigen::Index> order(n);
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](Eigen::Index a, Eigen::Index b) { return y(a) < y(b); });
  Eigen::ArrayXd rank(y.size());
  for (size_t first = 0; first < n;) {
    size_t last = first;
    while (last + 1 < n && y(order[last + 1]) == y(order[first])) ++last;
    for (size_t k = first; k <= last; ++k)
      rank(order[k]) = 0.5 * static_cast<double>(first + last);
    first = last + 1;
  }
  return ((rank + 0.5) / static_cast<double>(n)).ndtri().matrix();
}

}  // namespace tuner::schedulers
