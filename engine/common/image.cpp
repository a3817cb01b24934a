// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/error.hpp>
#include <cudafilters/image.hpp>

#include <string>

namespace cudafilters {

const char* sampleTypeName(SampleType type) {
    switch (type) {
    case SampleType::U8: return "u8";
    case SampleType::U16: return "u16";
    }
    return "unknown";
}

SampleBits resolveBits(SampleType type, SampleBits bits) {
    const int container = int(sampleSize(type)) * 8;
    if (bits.depth == 0) bits.depth = container - bits.shift;
    if (bits.depth < 1 || bits.shift < 0 || bits.depth + bits.shift > container)
        throw InvalidArgument(std::to_string(bits.depth) + " significant bits at bit " + std::to_string(bits.shift) +
                              " do not fit a " + sampleTypeName(type) + " sample");
    return bits;
}

void validateImage(const ImageView& image, const char* what) {
    const std::string name(what);
    if (image.width <= 0 || image.height <= 0)
        throw InvalidArgument(name + " image is empty (" + std::to_string(image.width) + "x" +
                              std::to_string(image.height) + ")");
    if (image.channels < 1 || image.channels > 4)
        throw InvalidArgument(name + " image has " + std::to_string(image.channels) + " channels; 1 to 4 are supported");
    if (!image.data) throw InvalidArgument(name + " image has no data");
    if (!sampleAligned(image))
        throw InvalidArgument(name + " image is not aligned to its " + std::to_string(sampleSize(image.type)) +
                              "-byte samples (pitch " + std::to_string(image.pitch) +
                              "); copy it to an aligned plane first");
    if (image.pitch < image.rowBytes())
        throw InvalidArgument(name + " image pitch " + std::to_string(image.pitch) + " is smaller than a row (" +
                              std::to_string(image.rowBytes()) + " bytes)");
}

}  // namespace cudafilters
