"""Reading GE graph dumps (ge_proto_*.txt, ge_onnx_*.pbtxt): their text form, the streaming scan, and the ModelDef they carry."""
