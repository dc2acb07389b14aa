// Placeholder translation unit; replaced by the device summary.
namespace gpuwhy::analysis {}
