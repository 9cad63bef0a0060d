// The QR decoder for browsers without BarcodeDetector (Chromium on Linux, Firefox, older Safari):
// the barcode-detector polyfill over ZXing's WebAssembly, whose file comes from our own host (the
// page names it), never the package's default CDN. Loaded only when the camera opens.
import { BarcodeDetector, prepareZXingModule } from 'barcode-detector/ponyfill';

declare global {
  interface Window {
    checkInScanner?: (wasmUrl: string) => {
      detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]>;
    };
  }
}

window.checkInScanner = (wasmUrl: string) => {
  prepareZXingModule({
    overrides: {
      locateFile: (path: string, prefix: string) => (path.endsWith('.wasm') ? wasmUrl : prefix + path),
    },
    fireImmediately: true,
  });
  return new BarcodeDetector({ formats: ['qr_code'] });
};
