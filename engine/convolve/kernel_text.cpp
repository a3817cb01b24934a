// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/error.hpp>
#include <cudafilters/kernel_text.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace cudafilters {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::string current;
    for (char ch : text) {
        if (ch == separator) {
            parts.push_back(current);
            current.clear();
        } else {
            current += ch;
        }
    }
    parts.push_back(current);
    return parts;
}

std::vector<std::string> values(const std::string& row) {
    std::vector<std::string> out;
    std::string current;
    for (char ch : row) {
        if (ch == ',' || std::isspace(static_cast<unsigned char>(ch))) {
            if (!current.empty()) out.push_back(current);
            current.clear();
        } else {
            current += ch;
        }
    }
    if (!current.empty()) out.push_back(current);
    return out;
}

// A value as quoted in an error: long tokens are cut so a runaway string does not flood the log.
std::string quoted(const std::string& token) {
    constexpr std::size_t kMax = 32;
    return "'" + (token.size() <= kMax ? token : token.substr(0, kMax) + "...") + "'";
}

bool blank(const std::string& s) {
    for (char ch : s)
        if (!std::isspace(static_cast<unsigned char>(ch))) return false;
    return true;
}

}  // namespace

std::vector<Kernel2D> parseKernelText(const std::string& text) {
    if (blank(text)) throw InvalidArgument("kernel text is empty");
    const std::vector<std::string> kernelTexts = split(text, '|');
    std::vector<Kernel2D> kernels;
    for (std::size_t k = 0; k < kernelTexts.size(); ++k) {
        const std::string where = kernelTexts.size() > 1 ? "kernel " + std::to_string(k + 1) + " " : "";
        std::vector<std::string> rows = split(kernelTexts[k], ';');
        // A trailing ';' is forgiven: "1 2 1;" is one row.
        if (rows.size() > 1 && blank(rows.back())) rows.pop_back();
        Kernel2D kernel;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const std::vector<std::string> tokens = values(rows[r]);
            if (tokens.empty())
                throw InvalidArgument(where + "row " + std::to_string(r + 1) + " is empty");
            if (kernel.width == 0) kernel.width = int(tokens.size());
            else if (int(tokens.size()) != kernel.width)
                throw InvalidArgument(where + "row " + std::to_string(r + 1) + " has " + std::to_string(tokens.size()) +
                                      " values, expected " + std::to_string(kernel.width));
            for (std::size_t v = 0; v < tokens.size(); ++v) {
                const std::string& token = tokens[v];
                char* end = nullptr;
                errno = 0;
                const double value = std::strtod(token.c_str(), &end);
                if (end == token.c_str() || *end != '\0')
                    throw InvalidArgument(where + "row " + std::to_string(r + 1) + " value " + std::to_string(v + 1) +
                                          " " + quoted(token) + " is not a number");
                if (!std::isfinite(value) || errno == ERANGE || std::fabs(value) > 3.0e38)
                    throw InvalidArgument(where + "row " + std::to_string(r + 1) + " value " + std::to_string(v + 1) +
                                          " " + quoted(token) + " is not a finite number");
                kernel.taps.push_back(static_cast<float>(value));
            }
            if (kernel.width > kMaxKernelSize)
                throw InvalidArgument(where + "is " + std::to_string(kernel.width) +
                                      " values wide; the largest supported size is " + std::to_string(kMaxKernelSize));
        }
        kernel.height = int(rows.size());
        if (kernel.height > kMaxKernelSize)
            throw InvalidArgument(where + "has " + std::to_string(kernel.height) +
                                  " rows; the largest supported size is " + std::to_string(kMaxKernelSize));
        if (!kernels.empty() && (kernel.width != kernels[0].width || kernel.height != kernels[0].height))
            throw InvalidArgument(where + "is " + std::to_string(kernel.width) + "x" + std::to_string(kernel.height) +
                                  " but kernel 1 is " + std::to_string(kernels[0].width) + "x" +
                                  std::to_string(kernels[0].height) + "; all kernels of a bank need one size");
        kernels.push_back(std::move(kernel));
    }
    return kernels;
}

std::string formatKernelText(const std::vector<Kernel2D>& kernels) {
    std::ostringstream out;
    out.precision(9);
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        if (k) out << " | ";
        for (int y = 0; y < kernels[k].height; ++y) {
            if (y) out << "; ";
            for (int x = 0; x < kernels[k].width; ++x) out << (x ? " " : "") << kernels[k].at(x, y);
        }
    }
    return out.str();
}

}  // namespace cudafilters
