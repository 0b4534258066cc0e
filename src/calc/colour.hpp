// src/calc/colour.hpp — the one HSL -> RGB conversion the drawings share.
#pragma once

#include <cmath>

namespace tessel::calc::detail {

struct Rgb {
  int r, g, b;
};

/// HSL (hue in degrees, saturation and lightness in [0,1]) to 8-bit RGB.
inline Rgb hsl(double h, double s, double l) {
  const double c = (1 - std::fabs(2 * l - 1)) * s;
  const double hp = std::fmod(h, 360.0) / 60.0;
  const double x = c * (1 - std::fabs(std::fmod(hp, 2.0) - 1));
  double r = 0, g = 0, b = 0;
  if (hp < 1)
    r = c, g = x;
  else if (hp < 2)
    r = x, g = c;
  else if (hp < 3)
    g = c, b = x;
  else if (hp < 4)
    g = x, b = c;
  else if (hp < 5)
    r = x, b = c;
  else
    r = c, b = x;
  const double m = l - c / 2;
  auto to8 = [m](double u) { return static_cast<int>(std::lround((u + m) * 255.0)); };
  return {to8(r), to8(g), to8(b)};
}

}  // namespace tessel::calc::detail
