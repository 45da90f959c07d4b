"""The conventions opdiff shares with the reference tool and the Ascend toolchain, one module each:
the quantisation name rules, dump and golden file names and the reference's row messages. Every layer may read them; they
import nothing of opdiff."""
