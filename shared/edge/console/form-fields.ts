// The console's form fields with their errors beside them: the error tied to its field, announced, and the field focused.
import { type Html, html } from './html.ts';

export interface TextFieldInput {
  readonly id: string;
  readonly name: string;
  readonly label: string;
  readonly value?: string;
  readonly error?: string;
  readonly hint?: string;
  readonly type?: 'text' | 'url';
  readonly required?: boolean;
  readonly maxLength?: number;
  readonly autocomplete?: string;
  /** Focus it when the page loads though it has no error of its own: the first field of a form refused as a whole. */
  readonly autofocus?: boolean;
}

/**
 * One labelled input. With an error, the input is marked invalid, described by the error (and the hint), and focused
 * when the page loads, so that a keyboard or screen-reader user lands on what to fix.
 */
export function textField(input: TextFieldInput): Html {
  const errorId = `${input.id}-error`;
  const hintId = `${input.id}-hint`;
  const describedBy = [input.error ? errorId : '', input.hint ? hintId : ''].filter(Boolean).join(' ');
  return html`<div class="field">
    <label for="${input.id}">${input.label}</label>
    <input
      id="${input.id}"
      name="${input.name}"
      type="${input.type ?? 'text'}"
      value="${input.value ?? ''}"
      ${input.required ? html` required` : ''}
      ${input.maxLength ? html` maxlength="${input.maxLength}"` : ''}
      ${input.autocomplete ? html` autocomplete="${input.autocomplete}"` : ''}
      ${describedBy ? html` aria-describedby="${describedBy}"` : ''}
      ${input.error ? html` aria-invalid="true" autofocus` : input.autofocus ? html` autofocus` : ''}
    />
    ${input.error ? html`<p class="error field-error" role="alert" id="${errorId}">${input.error}</p>` : ''}
    ${input.hint ? html`<p class="hint" id="${hintId}">${input.hint}</p>` : ''}
  </div>`;
}

/** Errors of a form by the field they belong to; `form` for what belongs to no one field. */
export type FieldErrors = Readonly<Record<string, string>>;

/** An ApiError's message as a sentence for the page: capitalised, with its full stop. */
export function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return text.endsWith('.') ? text : `${text}.`;
}
