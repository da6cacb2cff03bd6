weft_add_test(test_onnx_import SOURCES onnx/test_onnx_import.cpp LABELS core LIBS onnx onnx_proto protobuf::libprotobuf)
weft_add_test(test_onnx_hostile SOURCES onnx/test_onnx_hostile.cpp LABELS core LIBS onnx onnx_proto protobuf::libprotobuf)
weft_add_test(test_onnx_fold SOURCES onnx/test_onnx_fold.cpp LABELS core LIBS onnx onnx_proto protobuf::libprotobuf)
weft_add_test(test_tensor_pb SOURCES onnx/test_tensor_pb.cpp LABELS core LIBS onnx onnx_proto protobuf::libprotobuf)
