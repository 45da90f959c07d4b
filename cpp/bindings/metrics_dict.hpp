// The Python dict form of a MetricsResult, shared by every binding that returns metrics.
#pragma once

#include <pybind11/pybind11.h>

#include "opdiff/metrics.hpp"

pybind11::dict metrics_result_dict(const opdiff::MetricsResult& result);
