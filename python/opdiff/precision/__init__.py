"""What to change: the smallest set of a model's ops to keep in float32 so that its outputs pass a
target, found by running the model (dump-onnx's machinery) with candidate sets kept.

* :mod:`.target`: the target at the model outputs (the default verdict, or ``--fail-under`` limits);
* :mod:`.evaluate`: one evaluation, a run of the fp16 model with a set of ops kept in float32;
* :mod:`.candidates`: the ops that may be kept, ranked by the error each one adds;
* :mod:`.search`: the search (rank-order add until the target passes, then drop to 1-minimal);
* :mod:`.steps`: the step log in the output folder, which ``--resume`` reads back;
* :mod:`.device`: evaluations on a device, through the ``--build`` and ``--run`` commands;
* :mod:`.tf_model`: the search for a frozen TensorFlow graph, through the device loop only.
"""

DEFAULT_COMMAND_TIMEOUT_S = 3600.0  # a device loop's --build or --run command, once (here: the CLI reads it without numpy)
