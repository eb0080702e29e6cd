;;; readme.el --- the README's Emacs set-up, as a user's init.el  -*- lexical-binding: t; -*-

;; Run by TestEmacsReadmeSetup after the README's init.el block (loaded
;; with a fresh HOME, so eglot comes from the system's packages as it does
;; for a user): opening a Markdown file of a project starts agentls for it,
;; a reply in it applies to a.go, and C-c a a asks the (fake) model the
;; block names: its command waits for approval, the message names the
;; keys that answer it (C-c a y, not the server's command), and C-c a y
;; runs it.  Prints OK and exits 0, or FAIL:.

(defun readme-fail (fmt &rest args)
  (princ (concat "FAIL: " (apply #'format fmt args) "\n") #'external-debugging-output)
  (kill-emacs 1))

(defun readme-wait (what pred)
  "Let Emacs process the server's messages until PRED holds, or fail saying WHAT."
  (let ((deadline (+ (float-time) 15)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred) (readme-fail "timed out waiting for %s" what))))

;; The messages eglot shows for the server (window/showMessage), newest first.
(defvar readme-messages nil)
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/showMessage)) &key message &allow-other-keys)
  (push message readme-messages))

(defun readme-message (regexp)
  (seq-find (lambda (m) (string-match-p regexp m)) readme-messages))

(condition-case err
    (let* ((root (file-name-as-directory (getenv "AGENTLS_ROOT")))
           (default-directory root))
      ;; Batch Emacs cannot answer eglot's prompt and has no idle time.
      (setq eglot-confirm-server-initiated-edits nil
            eglot-sync-connect t
            eglot-send-changes-idle-time 0)
      (unless (eq (key-binding (kbd "C-c a")) 'agentls-command-map)
        (readme-fail "C-c a is %S" (key-binding (kbd "C-c a"))))
      ;; a.go open (eglot asks before it edits a file no buffer visits).
      (find-file-noselect (expand-file-name "a.go" root))
      (let ((reply (find-file-noselect (expand-file-name "reply.md" root))))
        (with-current-buffer reply
          ;; eglot-ensure connects after the next command; run its hook as
          ;; the command loop would.
          (run-hooks 'post-command-hook)
          (let ((deadline (+ (float-time) 10)))
            (while (and (not (eglot-current-server)) (< (float-time) deadline))
              (accept-process-output nil 0.05)
              (run-hooks 'post-command-hook)))
          (unless (eglot-current-server) (readme-fail "agentls did not start for reply.md"))
          (goto-char (point-max))
          (insert (getenv "AGENTLS_REPLY"))
          (agentls-apply-reply))
        (let ((deadline (+ (float-time) 10)) a)
          (while (and (not (and (setq a (find-buffer-visiting (expand-file-name "a.go" root)))
                                (with-current-buffer a (string-search "type Settings struct{}" (buffer-string)))))
                      (< (float-time) deadline))
            (accept-process-output nil 0.05))
          (unless (and a (with-current-buffer a (string-search "type Settings struct{}" (buffer-string))))
            (readme-fail "the reply did not apply to a.go: %S"
                         (and a (with-current-buffer a (buffer-string))))))
        ;; C-c a a: the model is the one the block sets; its reply runs a
        ;; command that needs the user's yes.
        (with-current-buffer reply
          (cl-letf (((symbol-function 'read-string) (lambda (&rest _) "make the marker file")))
            (call-interactively (key-binding (kbd "C-c a a")))))
        (readme-wait "the approval message" (lambda () (readme-message "asks to run")))
        (let ((asked (readme-message "asks to run")))
          (unless (string-match-p "with C-c a y / C-c a n (this is request [0-9]+: C-u [0-9]+ C-c a y" asked)
            (readme-fail "the approval message does not name the keys: %s" asked))
          (when (string-match-p "agentls\\.approve\\|{\"request\"" asked)
            (readme-fail "the approval message names the server's commands: %s" asked))
          (unless (string-match-p "1│ touch approved\\.txt\n2│ touch listed\\.txt\n" asked)
            (readme-fail "the approval message does not list both lines: %s" asked)))
        (with-current-buffer reply
          (call-interactively (key-binding (kbd "C-c a y"))))
        (readme-wait "the approved command" (lambda () (file-exists-p (expand-file-name "listed.txt" root))))
        ;; The answer first, then how the turn ended.
        (readme-wait "the end of the turn" (lambda () (readme-message "\\`Made it\\. — agentls: agent turn [0-9]+ done")))
        ;; The reply's edit says how to undo it with this set-up's key.
        (let ((applied (readme-message "applied 1 edit in a\\.go")))
          (unless (and applied (string-match-p "undo: C-c a u (agent turn [0-9]+)" applied))
            (readme-fail "the apply message does not name C-c a u: %S" applied)))
        ;; C-c a l shows the output: the model's answer is there.
        (call-interactively (key-binding (kbd "C-c a l")))
        (let ((out (get-buffer "*agentls output*")))
          (unless (and out (with-current-buffer out (string-search "Made it." (buffer-string))))
            (readme-fail "the output buffer lacks the answer: %S" (and out (with-current-buffer out (buffer-string))))))
        (princ "OK\n")
        (ignore-errors (eglot-shutdown (eglot-current-server)))
        (kill-emacs 0)))
  (error (readme-fail "%s" (error-message-string err))))

;;; readme.el ends here
