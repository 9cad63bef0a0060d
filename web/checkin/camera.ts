// The camera for scanning tickets: the browser's BarcodeDetector where it reads QR codes, else our
// decoder (scanner.ts, with its WebAssembly), fetched only now, the first time the camera opens.

interface Detector {
  detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]>;
}

declare global {
  interface Window {
    BarcodeDetector?: {
      new (options: { formats: string[] }): Detector;
      getSupportedFormats(): Promise<string[]>;
    };
  }
}

let stream: MediaStream | null = null;
let timer = 0;
let detector: Detector | null = null;

function loadScript(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error('scanner did not load'));
    document.head.append(script);
  });
}

async function makeDetector(files: { wasm: string; scanner: string }): Promise<Detector> {
  const Native = window.BarcodeDetector;
  if (Native) {
    try {
      if ((await Native.getSupportedFormats()).includes('qr_code'))
        return new Native({ formats: ['qr_code'] });
    } catch {
      // a detector without QR codes: ours then
    }
  }
  if (!window.checkInScanner) await loadScript(files.scanner);
  return window.checkInScanner!(files.wasm);
}

export async function openCamera(options: {
  wasm: string;
  scanner: string;
  onCode: (value: string) => void;
}) {
  const box = document.getElementById('checkin-camera')!;
  const video = document.getElementById('checkin-video') as HTMLVideoElement;
  const note = document.getElementById('checkin-camera-note')!;
  box.hidden = false;
  note.textContent = 'Opening the camera…';
  try {
    stream ??= await navigator.mediaDevices.getUserMedia({
      video: { facingMode: 'environment' },
      audio: false,
    });
    video.srcObject = stream;
    await video.play();
    detector ??= await makeDetector(options);
  } catch {
    note.textContent = 'The camera could not be opened: search by name, bib or code instead.';
    return;
  }
  note.textContent = "Point the camera at the ticket's QR code.";
  let last = '';
  let lastAt = 0;
  const tick = async () => {
    if (!stream || !detector) return;
    try {
      if (video.readyState >= 2) {
        const codes = await detector.detect(video);
        const value = codes[0]?.rawValue;
        // the same code in front of the camera is read once, not at every frame
        if (value && (value !== last || Date.now() - lastAt > 4000)) {
          last = value;
          lastAt = Date.now();
          options.onCode(value);
        }
      }
    } catch {
      // a frame that could not be read: the next one may
    }
    timer = window.setTimeout(() => void tick(), 250);
  };
  window.clearTimeout(timer);
  void tick();
}

export function closeCamera(): void {
  window.clearTimeout(timer);
  stream?.getTracks().forEach((t) => t.stop());
  stream = null;
  const video = document.getElementById('checkin-video') as HTMLVideoElement;
  video.srcObject = null;
  document.getElementById('checkin-camera')!.hidden = true;
}
