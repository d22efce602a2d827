// The draft of a text filter kept in the URL: typing changes the draft at
// once, and the URL (through `commit`) once typing pauses for `delay` ms; the
// draft follows the URL when that changes otherwise (back, a link).

import { useEffect, useRef, useState } from "react";

export function useDraft(value: string, commit: (draft: string) => void, delay: number) {
  const [draft, setDraft] = useState(value);
  const commitRef = useRef(commit);
  commitRef.current = commit;
  const valueRef = useRef(value);
  valueRef.current = value;
  useEffect(() => setDraft(value), [value]);
  useEffect(() => {
    if (draft === valueRef.current) return;
    const timer = setTimeout(() => commitRef.current(draft), delay);
    return () => clearTimeout(timer);
  }, [draft, delay]);
  return [draft, setDraft] as const;
}
