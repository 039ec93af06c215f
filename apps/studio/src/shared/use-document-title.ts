import { useEffect } from 'react';

export const PRODUCT_NAME = 'Agentic Workflow Studio';

export function useDocumentTitle(title: string | null | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · ${PRODUCT_NAME}` : PRODUCT_NAME;
  }, [title]);
}
