"""The advisor: from a comparison's rows to findings (culprit op, accumulated drift, overflow,
input mismatch, constant outputs, the end-to-end verdict), for tensor and for statistics dumps."""
