// Copy buttons: shown only when the browser can copy; the fields stay selectable without them.
(function () {
  var status = document.querySelector(".copy-status");
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    if (!navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      var field = document.getElementById(button.dataset.copy);
      navigator.clipboard.writeText(field.value !== undefined ? field.value : field.textContent).then(function () {
        button.textContent = "Copied";
        if (status) status.textContent = "Copied to the clipboard.";
        setTimeout(function () { button.textContent = "Copy"; }, 2000);
      });
    });
  });
})();
