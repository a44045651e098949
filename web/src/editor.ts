// A text area with line numbers and a status line below it: an error shows as
// FILE:LINE:COLUMN: message with its line marked in the margin, and the text is checked a
// quarter of a second after typing stops. The model editor and the score editor are two.

import type { HookeError } from './hooke';

/** Milliseconds of quiet typing before the text is checked. */
const CHECK_DELAY = 250;

export class CodeEditor {
  readonly text: HTMLTextAreaElement;
  private readonly gutter: HTMLPreElement;
  private readonly status: HTMLDivElement;
  private timer = 0;

  /** The editor of the elements `text`, `gutter` and `status` (ids); `check` is called after
   * typing. */
  constructor(text: string, gutter: string, status: string, check: () => void) {
    this.text = document.getElementById(text) as HTMLTextAreaElement;
    this.gutter = document.getElementById(gutter) as HTMLPreElement;
    this.status = document.getElementById(status) as HTMLDivElement;
    this.text.addEventListener('input', () => {
      this.renderGutter(null);
      clearTimeout(this.timer);
      this.timer = window.setTimeout(check, CHECK_DELAY);
    });
    this.text.addEventListener('scroll', () => (this.gutter.scrollTop = this.text.scrollTop));
  }

  get value(): string {
    return this.text.value;
  }

  set value(text: string) {
    this.text.value = text;
    this.renderGutter(null);
  }

  /** Shows `message` as the state of a good text (class `ok`), or of one being checked
   * (`pending`). */
  showOk(message: string, state: 'ok' | 'pending' = 'ok'): void {
    this.status.className = `status ${state}`;
    this.status.textContent = message;
    this.status.removeAttribute('data-line');
    this.status.removeAttribute('data-column');
    this.renderGutter(null);
  }

  /** Shows `error` at its line and column, and marks the line. */
  showError(error: HookeError): void {
    const where = error.line === null ? error.file : `${error.file}:${error.line}:${error.column}`;
    this.status.className = 'status bad';
    this.status.textContent = `${where}: ${error.message}`;
    this.status.dataset.line = String(error.line ?? '');
    this.status.dataset.column = String(error.column ?? '');
    this.renderGutter(error.line);
    if (error.line !== null) this.reveal(error.line);
  }

  /** Scrolls the text so that line `line` (1-based) is in view. */
  private reveal(line: number): void {
    const height = parseFloat(getComputedStyle(this.text).lineHeight) || 18;
    const top = (line - 1) * height;
    if (top < this.text.scrollTop || top + height > this.text.scrollTop + this.text.clientHeight) {
      this.text.scrollTop = Math.max(0, top - this.text.clientHeight / 3);
      this.gutter.scrollTop = this.text.scrollTop;
    }
  }

  private renderGutter(badLine: number | null): void {
    const lines = this.text.value.split('\n').length;
    this.gutter.replaceChildren();
    for (let i = 1; i <= lines; i++) {
      const span = document.createElement('span');
      span.textContent = String(i);
      if (i === badLine) span.className = 'bad';
      this.gutter.append(span, '\n');
    }
    this.gutter.scrollTop = this.text.scrollTop;
  }
}
