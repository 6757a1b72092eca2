// Loaded by pi (`pi -e THIS_FILE`) when loomtui resumes a session at a user message: as pi's
// /tree does, the message's text goes back into the editor, unsent. loomtui passes the text in
// LOOMTUI_EDITOR_TEXT (loomtui/formats/carry_on/pi_editor.py).
export default function (pi) {
  pi.on("session_start", (_event, ctx) => {
    const text = process.env.LOOMTUI_EDITOR_TEXT;
    if (text && ctx.hasUI) ctx.ui.setEditorText(text);
  });
}
