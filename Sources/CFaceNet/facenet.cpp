#include "vidfx_facenet.h"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

struct vfx_facenet {
    cv::dnn::Net net;
    std::vector<cv::String> outputs;
};

static void say(char *error, int size, const std::string &what) {
    if (!error || size <= 0) return;
    // OpenCV's messages span lines ("... error: (-215:Assertion failed) ... in function ..."): keep one.
    std::string line = what;
    for (char &c : line) if (c == '\n' || c == '\r') c = ' ';
    std::snprintf(error, (size_t)size, "%s", line.c_str());
}

extern "C" vfx_facenet *vfx_facenet_open(const char *path, char *error, int error_size) {
    try {
        // Owned until handed out: a model that fails to load frees it on every path.
        auto f = std::make_unique<vfx_facenet>();
        f->net = cv::dnn::readNetFromONNX(path);
        if (f->net.empty()) { say(error, error_size, "not a model OpenCV can read"); return nullptr; }
        f->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        f->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        f->outputs = f->net.getUnconnectedOutLayersNames();
        // CenterFace's outputs are numbered in the order heatmap, scale, offset, landmarks.
        std::sort(f->outputs.begin(), f->outputs.end(), [](const cv::String &a, const cv::String &b) {
            return a.size() != b.size() ? a.size() < b.size() : a < b;
        });
        return f.release();
    } catch (const cv::Exception &e) {
        say(error, error_size, std::string("not a model OpenCV can read (") + e.err + ")");
    } catch (const std::exception &e) {
        say(error, error_size, e.what());
    }
    return nullptr;
}

extern "C" void vfx_facenet_free(vfx_facenet *net) { delete net; }

extern "C" void vfx_facenet_threads(int threads) { cv::setNumThreads(threads); }

extern "C" int vfx_facenet_run(vfx_facenet *f, const float *blob, int width, int height, float *out, int channels,
                               char *error, int error_size) {
    try {
        int shape[] = {1, 3, height, width};
        cv::Mat input(4, shape, CV_32F, const_cast<float *>(blob));
        f->net.setInput(input);
        std::vector<cv::Mat> results;
        f->net.forward(results, f->outputs);
        const int plane = (height / 4) * (width / 4);
        int written = 0;
        for (const cv::Mat &m : results) {
            if (m.dims != 4 || m.size[2] != height / 4 || m.size[3] != width / 4 || !m.isContinuous() || m.type() != CV_32F) {
                say(error, error_size, "the model's outputs are not CenterFace's (maps a quarter of the input's size)");
                return -1;
            }
            int c = m.size[1];
            if (written + c > channels) { say(error, error_size, "the model has more outputs than CenterFace"); return -1; }
            std::memcpy(out + (size_t)written * plane, m.ptr<float>(), sizeof(float) * (size_t)c * plane);
            written += c;
        }
        if (written != channels) { say(error, error_size, "the model has fewer outputs than CenterFace"); return -1; }
        return 0;
    } catch (const cv::Exception &e) {
        say(error, error_size, std::string("the face model failed (") + e.err + ")");
    } catch (const std::exception &e) {
        say(error, error_size, e.what());
    }
    return -1;
}
