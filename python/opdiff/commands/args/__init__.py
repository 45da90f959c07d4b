"""The argument groups of opdiff's commands, each declared once: every group adds its flags to a
parser and, where it has one, parses them into its part of the one
:class:`opdiff.engine.options.CompareOptions` (compare_options.py puts the parts together).

| module | flags |
| --- | --- |
| dump_paths | -m, -g, --step, --all, -ffts |
| rules | -f, -cf, -q, -r, -s |
| output | -out / --output (and the dump commands' -o) |
| threads | -j / --threads |
| model_inputs | --input, --random-inputs, --input-shape (dump-onnx, dump-tf, dump-caffe, precision) |
| onnx_run | --dtype, --keep-fp32, --keep-fp32-file, --qdq, --skip-file (dump-onnx, precision) |
| precision_search | precision's target, ranking, search and device-loop flags |
| plugins | -c, -a (and convert's -c) |
| verdict | -alg, -max, -overflow_detection, --fail-under, --fail, --thresholds |
| reports | --report, -advisor, --ignore-ops, --progress, -map |
| isolation | --isolate, --isolate-weights |
| cluster | --scheduler, --tls-*, --lost-after |
| single_op | -op and its detail flags |
"""
