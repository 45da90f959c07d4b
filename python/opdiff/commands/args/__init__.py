"""The argument groups of opdiff's commands, each declared once: every group adds its flags to a
parser and, where it has one, parses them into its part of the one
:class:`opdiff.engine.options.CompareOptions` (compare_options.py puts the parts together).

| module | flags |
| --- | --- |
| dump_paths | -m, -g, --step, --all, -ffts |
| rules | -f, -cf, -q, -r, -s |
| output | -out / --output (and dump-onnx's and dump-tf's -o) |
| threads | -j / --threads |
| plugins | -c, -a (and convert's -c) |
| verdict | -alg, -max, -overflow_detection, --fail-under, --fail, --thresholds |
| reports | --report, -advisor, --ignore-ops, --progress, -map |
| isolation | --isolate |
| cluster | --scheduler, --tls-*, --lost-after |
| single_op | -op and its detail flags |
"""
