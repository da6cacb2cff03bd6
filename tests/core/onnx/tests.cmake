weft_add_test(test_onnx_import SOURCES onnx/test_onnx_import.cpp LABELS core LIBS onnx onnx_proto protobuf::libprotobuf)
