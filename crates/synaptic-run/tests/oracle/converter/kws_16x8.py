# A small keyword-spotting-shaped network quantized by TensorFlow's own converter as 16x8
# (EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8: int16 activations, int8 weights,
# int64 biases): CONV_2D, DEPTHWISE_CONV_2D, ADD, MAX_POOL_2D, AVERAGE_POOL_2D, FULLY_CONNECTED,
# LOGISTIC, SOFTMAX, RESHAPE. Needs tensorflow-cpu (not in the oracle venv: a separate venv);
# the model it writes is committed (tests/models/converter_16x8_kws.tflite), so the tests need
# no TensorFlow.  Run: python kws_16x8.py ../../models/converter_16x8_kws.tflite
import numpy as np, tensorflow as tf, sys
out = sys.argv[1]
tf.random.set_seed(7); np.random.seed(7)
inp = tf.keras.Input(shape=(49, 10, 1), batch_size=1)
x = tf.keras.layers.Conv2D(8, (3, 3), padding="same", activation="relu")(inp)
y = tf.keras.layers.DepthwiseConv2D((3, 3), padding="same", activation="relu")(x)
x = tf.keras.layers.Add()([x, y])
x = tf.keras.layers.MaxPooling2D((2, 2))(x)
x = tf.keras.layers.Conv2D(16, (1, 1), activation="relu6")(x)
x = tf.keras.layers.AveragePooling2D((2, 2))(x)
x = tf.keras.layers.Flatten()(x)
x = tf.keras.layers.Dense(32)(x)
x = tf.keras.layers.Activation("sigmoid")(x)
x = tf.keras.layers.Dense(12)(x)
x = tf.keras.layers.Softmax()(x)
m = tf.keras.Model(inp, x)
def rep():
    for _ in range(50):
        yield [np.random.uniform(-1, 1, (1, 49, 10, 1)).astype(np.float32)]
c = tf.lite.TFLiteConverter.from_keras_model(m)
c.optimizations = [tf.lite.Optimize.DEFAULT]
c.representative_dataset = rep
c.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
c.inference_input_type = tf.int16
c.inference_output_type = tf.int16
open(out, "wb").write(c.convert())
print("wrote", out)
