// A folder's name box (docs/folders.md): the sidebar's new folder and the list's rename use the same one.
import { MAX_FOLDER_NAME } from "@contract/tables";

export function FolderNameInput(props: { id: string; testId: string; value: string; onChange: (name: string) => void; errorId?: string | null }) {
  return (
    <>
      <label htmlFor={props.id} className="visually-hidden">
        Folder name
      </label>
      <input
        id={props.id}
        data-testid={props.testId}
        type="text"
        autoFocus
        placeholder="Folder name"
        maxLength={MAX_FOLDER_NAME}
        value={props.value}
        aria-invalid={props.errorId ? true : undefined}
        aria-describedby={props.errorId ?? undefined}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </>
  );
}
