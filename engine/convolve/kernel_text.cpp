// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/error.hpp>
#include <cudafilters/kernel_text.hpp>

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <limits>
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

// A row's values: separated by spaces or by one comma (spaces around it allowed). An empty value (",," or a comma at
// either end of the row) is an error rather than skipped: "1,,2" is more likely a value left out than two values.
std::vector<std::string> values(const std::string& row, const std::string& where) {
    std::vector<std::string> out;
    std::string current;
    bool afterComma = false;  // the row's start counts as one: ",1" has an empty first value
    const auto emptyValue = [&](std::size_t index) {
        return InvalidArgument(where + "value " + std::to_string(index) +
                               " is empty (two commas in a row, or a comma at the start or end of the row); separate "
                               "values by one comma or by spaces");
    };
    for (char ch : row) {
        const bool comma = ch == ',';
        if (comma || std::isspace(static_cast<unsigned char>(ch))) {
            if (!current.empty()) {
                out.push_back(current);
                current.clear();
                afterComma = false;
            }
            if (comma) {
                if (afterComma || out.empty()) throw emptyValue(out.size() + 1);
                afterComma = true;
            }
        } else {
            current += ch;
        }
    }
    if (!current.empty()) out.push_back(current);
    else if (afterComma) throw emptyValue(out.size() + 1);
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

bool digit(char ch) { return ch >= '0' && ch <= '9'; }

// A decimal number: [+-] digits [. digits] [e [+-] digits], at least one digit before the exponent. Hexadecimal
// ("0x10", which strtod reads as 16), "inf" and "nan" are not. Sets `zero` when every mantissa digit is 0, and
// `magnitude` to the decimal exponent of the first significant digit (saturated), so that out-of-range values are
// known before any conversion.
bool decimalNumber(const std::string& t, bool& zero, long& magnitude) {
    std::size_t i = 0;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    long digitsBeforePoint = 0, firstSignificant = 0;
    bool seenDigit = false, seenSignificant = false, point = false;
    long position = 0;  // digits read so far
    for (; i < t.size() && (digit(t[i]) || (t[i] == '.' && !point)); ++i) {
        if (t[i] == '.') {
            point = true;
            continue;
        }
        seenDigit = true;
        if (!point) ++digitsBeforePoint;
        if (t[i] != '0' && !seenSignificant) {
            seenSignificant = true;
            firstSignificant = position;
        }
        if (position < 1000000) ++position;
    }
    if (!seenDigit) return false;
    long exponent = 0;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        bool negative = false;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) negative = t[i++] == '-';
        if (i == t.size() || !digit(t[i])) return false;
        for (; i < t.size() && digit(t[i]); ++i) exponent = std::min(exponent * 10 + (t[i] - '0'), 100000000L);
        if (negative) exponent = -exponent;
    }
    if (i != t.size()) return false;
    zero = !seenSignificant;
    magnitude = std::min(digitsBeforePoint, 1000000L) - 1 - firstSignificant + exponent;
    return true;
}

}  // namespace

const char* const kTapRange = "taps are 32-bit floats: 0, or a magnitude from 1.2e-38 to 3.4e38";


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
        const std::string subject = where.empty() ? "kernel " : where;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const std::string rowName = where + "row " + std::to_string(r + 1) + " ";
            const std::vector<std::string> tokens = values(rows[r], rowName);
            if (tokens.empty())
                throw InvalidArgument(where + "row " + std::to_string(r + 1) + " is empty");
            if (kernel.width == 0) kernel.width = int(tokens.size());
            else if (int(tokens.size()) != kernel.width)
                throw InvalidArgument(where + "row " + std::to_string(r + 1) + " has " + std::to_string(tokens.size()) +
                                      " values, expected " + std::to_string(kernel.width));
            for (std::size_t v = 0; v < tokens.size(); ++v) {
                const std::string& token = tokens[v];
                const std::string value = rowName + "value " + std::to_string(v + 1) + " " + quoted(token);
                bool zero = false;
                long magnitude = 0;
                if (!decimalNumber(token, zero, magnitude)) {
                    std::string lower;
                    for (char ch : token) lower += char(std::tolower(static_cast<unsigned char>(ch)));
                    const std::string bare = lower[0] == '+' || lower[0] == '-' ? lower.substr(1) : lower;
                    if (bare.rfind("nan", 0) == 0 || bare.rfind("inf", 0) == 0)
                        throw InvalidArgument(value + " is not a finite number; " + kTapRange);
                    if (bare.rfind("0x", 0) == 0)
                        throw InvalidArgument(value + " is not a decimal number; write taps in decimal (e.g. 16, "
                                              "-0.5, 1e-3)");
                    throw InvalidArgument(value + " is not a number; write taps in decimal (e.g. 16, -0.5, 1e-3)");
                }
                float tap = 0;
                if (!zero) {
                    // Beyond ±1e40 or below 1e-46 no float holds it; nearer the limits the conversion decides.
                    double parsed = 0;
                    if (magnitude < 40 && magnitude > -46) {
                        const char* begin = token.c_str() + (token[0] == '+' ? 1 : 0);
                        std::from_chars(begin, token.c_str() + token.size(), parsed);
                    }
                    tap = static_cast<float>(parsed);
                    if (magnitude >= 40 || std::isinf(tap))
                        throw InvalidArgument(value + " is too large; " + kTapRange);
                    if (magnitude <= -46 || std::fabs(tap) < std::numeric_limits<float>::min())
                        throw InvalidArgument(value + " is too close to 0; " + kTapRange + " (write 0 for a zero tap)");
                }
                kernel.taps.push_back(tap);
            }
            if (kernel.width > kMaxKernelSize)
                throw InvalidArgument(subject + "is " + std::to_string(kernel.width) + " values wide (" + where +
                                      "row " + std::to_string(r + 1) + "); the largest supported size is " +
                                      std::to_string(kMaxKernelSize) + "x" + std::to_string(kMaxKernelSize) +
                                      ": give at most " + std::to_string(kMaxKernelSize) + " values per row");
        }
        kernel.height = int(rows.size());
        if (kernel.height > kMaxKernelSize)
            throw InvalidArgument(subject + "has " + std::to_string(kernel.height) +
                                  " rows; the largest supported size is " + std::to_string(kMaxKernelSize) + "x" +
                                  std::to_string(kMaxKernelSize) + ": give at most " + std::to_string(kMaxKernelSize) +
                                  " rows");
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
