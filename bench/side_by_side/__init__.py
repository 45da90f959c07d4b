"""Running opdiff and the reference tool (msaccucmp) side by side: locating and driving the
reference as a black box, measuring runs, generating data and diffing result CSVs. Bench tooling
only; opdiff never imports it."""
