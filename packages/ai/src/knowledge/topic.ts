/** One topic of the assistant's application-security knowledge (appsec-topics.ts searches them). */
export interface AppSecTopic {
  /** Stable, kebab-case: "password-storage". */
  id: string;
  title: string;
  /** What people call the subject, including shorthand ("jwt", "a02"). */
  keywords: string[];
  /** Markdown, trusted: written here, not taken from users or scans. */
  body: string;
  /** Related weaknesses, "CWE-<n>", most relevant first. */
  cwes: string[];
  references?: string[];
}
