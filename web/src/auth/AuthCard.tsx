// The card a signed-out page stands in: its title, its content (a form, a notice), and the links under it.
import type { ReactNode } from "react";

export function AuthCard({ title, alt, children, testId }: { title: string; alt: ReactNode; children: ReactNode; testId?: string }) {
  return (
    <section className="auth-card card" data-testid={testId}>
      <h1>{title}</h1>
      {children}
      <p className="auth-alt">{alt}</p>
    </section>
  );
}
