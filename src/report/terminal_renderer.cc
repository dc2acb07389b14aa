// Placeholder translation unit; replaced by the terminal renderer.
namespace gpuwhy::report {}
